// Usage: node knowledge_page.mjs PAGE_URL TITLE
//
// Reads metaforge's /knowledge page in headless Chromium as a person would
// (opened at the address with the operator token): waits for the sources,
// clicks the one titled TITLE, and reads its passages. Prints one JSON line
// of what it saw; exits non-zero on any failed expectation.
import assert from 'node:assert/strict';
import { chromiumPath, launchChromium } from './browser.mjs';
import { emit, main } from './scenario.mjs';

const STEP_MS = 30_000;

await main(
  async () => {
    const [url, title] = process.argv.slice(2);
    assert.ok(url && title, 'usage: node knowledge_page.mjs PAGE_URL TITLE');
    const observed = {};
    const browser = await launchChromium(chromiumPath(), STEP_MS);
    try {
      const page = await (await browser.newContext()).newPage();
      page.setDefaultTimeout(STEP_MS);
      const pageErrors = [];
      page.on('pageerror', (err) => pageErrors.push(String(err?.stack ?? err)));
      page.on('console', (msg) => { if (msg.type() === 'error') pageErrors.push(msg.text()); });
      const resp = await page.goto(url);
      assert.equal(resp?.status(), 200, `GET /knowledge: HTTP ${resp?.status()}`);
      const row = page.locator('tr.source', { hasText: title });
      await row.first().waitFor({ state: 'visible' });
      observed.rows = await page.locator('tr.source').count();
      observed.mode = await page.locator('#mode').innerText();
      await row.first().click();
      await page.locator('#detail pre').first().waitFor({ state: 'visible' });
      observed.detail = await page.locator('#detail').innerText();
      observed.pageErrors = pageErrors;
    } finally {
      await browser.close();
      emit(observed);
    }
  },
  { timeoutMs: 120_000 },
);
