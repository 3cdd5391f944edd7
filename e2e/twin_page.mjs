// Usage: E2E_OPERATOR_TOKEN=TOKEN E2E_SCREENSHOTS=DIR node twin_page.mjs BASE_URL PROJECT_ID NODE_ID
//
// Reads metaforge's /twin page as a person would, in headless Chromium
// driven by playwright-core: the structure tab of PROJECT_ID (each row's
// roll-up figures, quantity, owner and interfaces, from their data-*
// attributes), then a click on NODE_ID's row and on the Model tab, whose
// WebGL canvas is read back pixel by pixel (how much of it is drawn, how
// much is the dark of edges), then /twin?tab=asm, which the page does not
// have. Writes twin-structure.png and twin-model.png into DIR. Prints one
// JSON line of what it saw; exits non-zero on any failed expectation.
import assert from 'node:assert/strict';
import path from 'node:path';
import { chromiumPath, launchChromium } from './browser.mjs';
import { emit, main } from './scenario.mjs';

const STEP_MS = 60_000;

await main(
  async () => {
    const [base, project, nodeID] = process.argv.slice(2);
    assert.ok(base && project && nodeID, 'usage: node twin_page.mjs BASE_URL PROJECT_ID NODE_ID');
    const shots = process.env.E2E_SCREENSHOTS;
    assert.ok(shots, 'E2E_SCREENSHOTS names the folder for the screenshots');
    const observed = { screenshots: [] };
    const browser = await launchChromium(chromiumPath(), STEP_MS);
    try {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      page.setDefaultTimeout(STEP_MS);
      const pageErrors = [];
      const consoleErrors = [];
      page.on('pageerror', (err) => pageErrors.push(String(err?.stack ?? err)));
      page.on('console', (msg) => msg.type() === 'error' && consoleErrors.push(msg.text()));
      const url = new URL('/twin', base);
      url.searchParams.set('project', project);
      url.searchParams.set('tab', 'structure');
      url.searchParams.set('token', process.env.E2E_OPERATOR_TOKEN ?? '');
      const resp = await page.goto(url.href);
      assert.equal(resp?.status(), 200, `GET /twin: HTTP ${resp?.status()}`);

      // The structure tab.
      await page.locator('table#structure tr[data-item-key="HN-COLUMN"]').waitFor();
      observed.rows = await page.locator('table#structure tbody tr').evaluateAll((trs) =>
        trs.map((tr) => ({
          key: tr.dataset.itemKey,
          mass: tr.querySelector('td[data-figure="mass"]')?.dataset.value ?? '',
          cost: tr.querySelector('td[data-figure="cost"]')?.dataset.value ?? '',
          owner: tr.querySelector('td[data-owner]')?.dataset.owner ?? '',
          interfaces: tr.querySelector('td[data-interfaces]')?.dataset.interfaces ?? '',
          quantity: tr.querySelector('td[data-quantity]')?.dataset.quantity ?? '',
        })),
      );
      const structureShot = path.join(shots, 'twin-structure.png');
      await page.screenshot({ path: structureShot, fullPage: true });
      observed.screenshots.push(structureShot);

      // Select the node (a click on its row), then the Model tab.
      await page.locator(`tr[data-node-id="${nodeID}"] td.num`).first().click();
      await page.locator(`tr[data-node-id="${nodeID}"][aria-selected="true"]`).waitFor();
      await page.click('#tab-model');
      await page.locator('#viewer[data-ready="true"]').waitFor();
      observed.modelAddress = page.url();
      observed.selectedType = await page.locator('#selected-node').getAttribute('data-node-type');
      // Let a frame land, then read the canvas back.
      await page.waitForTimeout(300);
      observed.model = await page.locator('#viewer').evaluate((box) => {
        const c = box.querySelector('canvas');
        const gl = c.getContext('webgl2') || c.getContext('webgl');
        const info = gl && gl.getExtension('WEBGL_debug_renderer_info');
        const copy = document.createElement('canvas');
        copy.width = c.width;
        copy.height = c.height;
        const ctx = copy.getContext('2d');
        ctx.drawImage(c, 0, 0);
        const { data } = ctx.getImageData(0, 0, c.width, c.height);
        let inked = 0;
        let dark = 0;
        for (let i = 0; i < data.length; i += 4) {
          const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
          if (Math.abs(r - 0xfa) + Math.abs(g - 0xfb) + Math.abs(b - 0xfc) > 24) inked++;
          if (r < 70 && g < 70 && b < 70) dark++;
        }
        const n = data.length / 4;
        return {
          parts: box.dataset.parts,
          triangles: box.dataset.triangles,
          inkedFraction: inked / n,
          darkFraction: dark / n,
          width: c.width,
          renderer: info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : '',
        };
      });
      const modelShot = path.join(shots, 'twin-model.png');
      await page.screenshot({ path: modelShot, fullPage: true });
      observed.screenshots.push(modelShot);

      // A tab the page does not have.
      const asm = new URL('/twin', base);
      asm.searchParams.set('project', project);
      asm.searchParams.set('tab', 'asm');
      await page.goto(asm.href);
      observed.unknownTab = (await page.locator('#unknown-tab').innerText()).trim();
      observed.pageErrors = pageErrors;
      observed.consoleErrors = consoleErrors;
    } catch (err) {
      // Say what the page showed when an expectation failed.
      const pages = browser.contexts().flatMap((c) => c.pages());
      const text = pages.length ? await pages[0].locator('#app').innerText().catch(() => '') : '';
      console.error(`page ${pages[0]?.url()} showed:\n${text.slice(0, 2000)}`);
      throw err;
    } finally {
      await browser.close();
      emit(observed);
    }
  },
  { timeoutMs: 110_000 },
);
