// Usage: E2E_OPERATOR_TOKEN=TOKEN E2E_SCREENSHOTS=DIR node sim_page.mjs BASE_URL PROJECT FEA_CALL HEAVIER_CALL NO_FIELD_CALL POINT_JSON
//
// The /sim page in headless Chromium (WebGL on SwiftShader), as a person
// uses it: the project's FEA results list; FEA_CALL's page (the canvas's
// colours, the legend's maximum, the hover probe with the real mouse over
// POINT_JSON, an undeformed surface point at the cantilever's tip, and
// the deformation slider moved with the keyboard); FEA_CALL compared with
// HEAVIER_CALL (two views, one scale, one camera: a drag on the left one
// turns both); NO_FIELD_CALL's page (the "Field not stored" note). Writes
// a PNG of each view into E2E_SCREENSHOTS and prints one JSON line of what
// it saw; sim_page_test.go judges it.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromiumPath, launchChromium } from './browser.mjs';
import { emit, main } from './scenario.mjs';

const STEP_MS = 30_000;

await main(
  async () => {
    const [base, project, feaCall, heavierCall, noFieldCall, pointJSON] = process.argv.slice(2);
    assert.ok(base && project && feaCall && heavierCall && noFieldCall && pointJSON, 'usage: node sim_page.mjs BASE_URL PROJECT FEA_CALL HEAVIER_CALL NO_FIELD_CALL POINT_JSON');
    const shots = process.env.E2E_SCREENSHOTS;
    assert.ok(shots, 'E2E_SCREENSHOTS names the folder for the screenshots');
    mkdirSync(shots, { recursive: true });
    const point = JSON.parse(pointJSON);
    const observed = { screenshots: [], pageErrors: [], consoleErrors: [] };
    const browser = await launchChromium(chromiumPath(), STEP_MS);
    try {
      const page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
      page.setDefaultTimeout(STEP_MS);
      page.on('pageerror', (err) => observed.pageErrors.push(String(err?.stack ?? err)));
      // The one error expected: the browser logs the 404 of the field a
      // result without one answers ("field not stored"), which the page shows.
      const expected404 = `/v1/results/${noFieldCall}/field`;
      page.on('console', (m) => {
        if (m.type() !== 'error') return;
        if (/^Failed to load resource: .* 404/.test(m.text()) && (m.location()?.url ?? '').includes(expected404)) return;
        observed.consoleErrors.push(`${m.text()} (${m.location()?.url ?? ''})`);
      });
      const open = async (query) => {
        const url = new URL('/sim', base);
        for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
        const resp = await page.goto(url.href);
        assert.equal(resp?.status(), 200, `GET ${url.pathname}${url.search}: HTTP ${resp?.status()}`);
      };
      const shot = async (name) => {
        const path = join(shots, `sim-${name}.png`);
        await page.screenshot({ path, fullPage: true });
        observed.screenshots.push(path);
      };
      const ready = () => page.locator('#sim-views[data-state="ready"]').waitFor({ state: 'attached' });

      // The list: the token once (it is kept for the tab), the project.
      await open({ token: process.env.E2E_OPERATOR_TOKEN ?? '', project });
      await page.locator(`tr[data-call-id="${feaCall}"]`).waitFor({ state: 'visible' });
      observed.listRows = (await page.locator('#sim-results tbody tr[data-call-id]').allInnerTexts()).map((s) => s.trim());
      await shot('list');

      // One result.
      await open({ project, result: feaCall });
      await ready();
      observed.distinctColours = await page.evaluate(() => {
        const src = document.querySelector('canvas[data-side="a"]');
        const c = document.createElement('canvas');
        c.width = src.width;
        c.height = src.height;
        const ctx = c.getContext('2d');
        ctx.drawImage(src, 0, 0);
        const px = ctx.getImageData(0, 0, c.width, c.height).data;
        const seen = new Set();
        for (let i = 0; i < px.length; i += 4) seen.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
        return seen.size;
      });
      observed.legendMax = (await page.locator('#sim-legend .legend-max').innerText()).trim();
      observed.legendMaxData = await page.locator('#sim-legend').getAttribute('data-max');
      observed.info = (await page.locator('#sim-info').innerText()).trim();

      // The probe: the real mouse over the tip, where it is drawn now.
      const at = await page.evaluate((p) => window.__sim.screenOf(p), point);
      assert.ok(at.visible, `the tip point ${pointJSON} is not in view: ${JSON.stringify(at)}`);
      await page.mouse.move(at.x - 40, at.y - 40);
      await page.mouse.move(at.x, at.y, { steps: 5 });
      const probe = page.locator('#sim-probe[data-disp]');
      await probe.waitFor({ state: 'attached' });
      observed.tip = {
        point, screen: at,
        disp: await probe.getAttribute('data-disp'),
        node: await probe.getAttribute('data-node'),
        side: await probe.getAttribute('data-side'),
        text: (await probe.innerText()).trim(),
      };
      await shot('result');

      // The deformation slider, moved with the keyboard, lands in the
      // address.
      await page.focus('#sim-scale');
      for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() => new URL(location.href).searchParams.has('scale'));
      observed.scaleAddress = page.url();
      await shot('result-scaled');

      // Two results side by side.
      await open({ project, result: feaCall, compare: heavierCall });
      await ready();
      observed.compareSides = await page.locator('.sim-side canvas').count();
      observed.compareLegendMax = (await page.locator('#sim-legend .legend-max').innerText()).trim();
      const cams = () => page.evaluate(() => window.__sim.views.map((v) => v.camera.position.toArray()));
      const before = await cams();
      const box = await page.locator('canvas[data-side="a"]').boundingBox();
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width / 2 + 120, box.y + box.height / 2 + 30, { steps: 8 });
      await page.mouse.up();
      const after = await cams();
      const same = (a, b) => a.every((x, i) => Math.abs(x - b[i]) < 1e-6);
      observed.cameraSynced = !same(before[0], after[0]) && same(after[0], after[1]);
      await shot('compare');

      // A result with no field.
      await open({ project, result: noFieldCall });
      const note = page.locator('.sim-note[data-state="not-stored"]');
      await note.waitFor({ state: 'visible' });
      observed.notStored = (await note.innerText()).trim();
      await shot('not-stored');
    } finally {
      await browser.close();
    }
    emit(observed);
  },
  { timeoutMs: 150_000 },
);
