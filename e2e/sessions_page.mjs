// Usage: node sessions_page.mjs BASE_URL CLIENT_NAME
//
// Reads metaforge's /sessions page in headless Chromium as a person would:
// waits for the row of the session whose client is CLIENT_NAME, clicks it,
// and reads the calls listed for it. Prints one JSON line of what it saw;
// exits non-zero on any failed expectation.
import assert from 'node:assert/strict';
import { chromiumPath, launchChromium } from './browser.mjs';
import { emit, main } from './scenario.mjs';

const STEP_MS = 30_000;

await main(
  async () => {
    const [base, clientName] = process.argv.slice(2);
    assert.ok(base && clientName, 'usage: node sessions_page.mjs BASE_URL CLIENT_NAME');
    const exe = chromiumPath();
    const observed = {};
    const browser = await launchChromium(exe, STEP_MS);
    try {
      const page = await (await browser.newContext()).newPage();
      page.setDefaultTimeout(STEP_MS);
      const pageErrors = [];
      page.on('pageerror', (err) => pageErrors.push(String(err?.stack ?? err)));
      const resp = await page.goto(new URL('/sessions', base).href);
      assert.equal(resp?.status(), 200, `GET /sessions: HTTP ${resp?.status()}`);
      const row = page.locator('tr.session', { hasText: clientName });
      await row.first().waitFor({ state: 'visible' });
      observed.sessionRows = await row.count();
      observed.sessionText = (await row.first().innerText()).trim();
      await row.first().click();
      const calls = page.locator('#actions tr');
      await calls.first().waitFor({ state: 'visible' });
      observed.calls = (await calls.allInnerTexts()).map((t) => t.trim());
      observed.pageErrors = pageErrors;
    } finally {
      await browser.close();
      emit(observed);
    }
  },
  { timeoutMs: 120_000 },
);
