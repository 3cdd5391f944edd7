// Usage: E2E_OPERATOR_TOKEN=TOKEN E2E_SCREENSHOTS=DIR node circuits_page.mjs BASE_URL CALL_ID
//
// Reads an AC result on metaforge's /circuits page as a person would, in
// headless Chromium driven by playwright-core: opens
// BASE_URL/circuits?result=CALL_ID, waits for the plots, types 9947 into
// cursor A and reads the readout table's data-value of each trace there,
// types 1M into cursor B (refused: SPICE reads M as milli), drags across
// the magnitude plot to zoom, resets the zoom, clicks the plot to move
// cursor A, then opens the list (/circuits) and finds the call's row.
// Writes circuits.png and circuits-list.png into DIR. Prints one JSON line
// of what it saw; exits non-zero on any failed expectation.
import assert from 'node:assert/strict';
import path from 'node:path';
import { chromiumPath, launchChromium } from './browser.mjs';
import { emit, main } from './scenario.mjs';

const STEP_MS = 30_000;

// ink counts a canvas's pixels that are not background.
function canvasInk(canvas) {
  const ctx = canvas.getContext('2d');
  const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
  let n = 0;
  for (let i = 0; i < data.length; i += 4) {
    const a = data[i + 3];
    if (a > 0 && !(data[i] > 240 && data[i + 1] > 240 && data[i + 2] > 240)) n++;
  }
  return n;
}

await main(
  async () => {
    const [base, callID] = process.argv.slice(2);
    assert.ok(base && callID, 'usage: node circuits_page.mjs BASE_URL CALL_ID');
    const shots = process.env.E2E_SCREENSHOTS;
    assert.ok(shots, 'E2E_SCREENSHOTS names the folder for the screenshots');
    const observed = { callId: callID, screenshots: [] };
    const browser = await launchChromium(chromiumPath(), STEP_MS);
    try {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
      page.setDefaultTimeout(STEP_MS);
      const pageErrors = [];
      const consoleErrors = [];
      page.on('pageerror', (err) => pageErrors.push(String(err?.stack ?? err)));
      page.on('console', (msg) => msg.type() === 'error' && consoleErrors.push(msg.text()));
      const url = new URL('/circuits', base);
      url.searchParams.set('result', callID);
      url.searchParams.set('token', process.env.E2E_OPERATOR_TOKEN ?? '');
      const resp = await page.goto(url.href);
      assert.equal(resp?.status(), 200, `GET /circuits: HTTP ${resp?.status()}`);
      await page.locator('#circuit-plots[data-ready="true"]').waitFor();
      observed.analysis = await page.locator('#result-analysis').getAttribute('data-analysis');
      observed.plots = await page.locator('figure.plot').evaluateAll((els) => els.map((e) => e.dataset.plot));
      observed.canvasInk = {};
      for (const plot of observed.plots) {
        observed.canvasInk[plot] = await page.locator(`figure.plot[data-plot="${plot}"] canvas`).evaluate(canvasInk);
      }

      // Cursor A typed at the corner frequency.
      await page.fill('#cursor-a', '9947');
      await page.press('#cursor-a', 'Enter');
      const magA = page.locator('td[data-cursor="a"][data-trace="v(out) magnitude"]');
      await page.waitForFunction(() => document.querySelector('td[data-cursor="a"][data-trace="v(out) magnitude"]')?.dataset.value);
      observed.readoutA = Object.fromEntries(
        await page.locator('td[data-cursor="a"]').evaluateAll((els) => els.map((e) => [e.dataset.trace, e.dataset.value])),
      );
      observed.readoutAText = await magA.innerText();
      observed.headerA = (await page.locator('th[data-cursor="a"]').innerText()).trim();
      observed.addressAfterCursor = page.url();

      // An ambiguous suffix is refused, saying what to write.
      await page.fill('#cursor-b', '1M');
      await page.press('#cursor-b', 'Enter');
      observed.badCursorMessage = (await page.locator('#cursor-error').innerText()).trim();
      await page.fill('#cursor-b', '');
      await page.press('#cursor-b', 'Enter');

      const shot = path.join(shots, 'circuits.png');
      await page.screenshot({ path: shot, fullPage: true });
      observed.screenshots.push(shot);

      // Drag across the middle of the magnitude plot: both plots zoom.
      const over = page.locator('figure.plot[data-plot="magnitude"] .u-over');
      const box = await over.boundingBox();
      const y = box.y + box.height / 2;
      await page.mouse.move(box.x + box.width * 0.3, y);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.45, y, { steps: 5 });
      await page.mouse.move(box.x + box.width * 0.6, y, { steps: 5 });
      await page.mouse.up();
      const range = (plot) =>
        page.locator(`figure.plot[data-plot="${plot}"]`).evaluate((e) => [Number(e.dataset.xmin), Number(e.dataset.xmax)]);
      await page.waitForFunction(() => Number(document.querySelector('figure.plot[data-plot="magnitude"]').dataset.xmin) > 10);
      observed.zoomedRange = await range('magnitude');
      observed.phaseRangeAfterZoom = await range('phase');
      observed.addressAfterZoom = page.url();
      await page.click('#reset-zoom');
      observed.resetRange = await range('magnitude');

      // A click (no drag) on the plot moves cursor A there.
      await page.mouse.click(box.x + box.width * 0.8, y);
      await page.waitForFunction(() => !document.querySelector('th[data-cursor="a"]').textContent.includes('9.947 kHz'));
      observed.headerAAfterClick = (await page.locator('th[data-cursor="a"]').innerText()).trim();

      // The list offers the call.
      await page.goto(new URL('/circuits', base).href);
      const row = page.locator(`tr[data-call-id="${callID}"]`);
      await row.waitFor();
      observed.listRow = (await row.innerText()).trim();
      const listShot = path.join(shots, 'circuits-list.png');
      await page.screenshot({ path: listShot, fullPage: true });
      observed.screenshots.push(listShot);
      observed.pageErrors = pageErrors;
      observed.consoleErrors = consoleErrors;
    } finally {
      await browser.close();
      emit(observed);
    }
  },
  { timeoutMs: 100_000 },
);
