// Usage: node sessions_page.mjs BASE_URL CLIENT_NAME
//
// Reads metaforge's /sessions page in headless Chromium as a person would:
// waits for the row of the session whose client is CLIENT_NAME, clicks it,
// and reads the calls listed for it. Prints one JSON line of what it saw;
// exits non-zero on any failed expectation.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { emit, main } from './scenario.mjs';

const STEP_MS = 30_000;

await main(
  async () => {
    const [base, clientName] = process.argv.slice(2);
    assert.ok(base && clientName, 'usage: node sessions_page.mjs BASE_URL CLIENT_NAME');
    const exe = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean).find((p) => existsSync(p));
    assert.ok(exe, 'no Chromium: install Debian\'s (apt-get install chromium, or bash deploy/test-deps.sh), or set CHROMIUM_PATH');
    const observed = {};
    const browser = await chromium.launch({
      executablePath: exe, headless: true, timeout: STEP_MS,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
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
