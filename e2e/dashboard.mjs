// Usage: E2E_SCREENSHOTS=DIR node dashboard.mjs PLAN.json
//
// Opens every page of the dashboard in headless Chromium as a person
// would, in one tab that took the operator token from the link metaforge
// serve prints. PLAN (written by dashboard_test.go) names the base URL,
// the token, the pages (each route of dashboard.Routes opened at an object
// of the project the test built, and the pages served beside it), the
// links tool results carried, and the run whose waiting gate is approved
// on its page. For each page: its HTTP status, every console error and
// uncaught exception, which expected ids or names it does not show (as
// text or as a data-* attribute's value), any "null", "undefined", "NaN"
// or "[object Object]" it printed, and a PNG screenshot under
// $E2E_SCREENSHOTS. Then it approves the run's gate on /runs/{id} and
// waits for the page to show the next phase without a reload. Prints one
// JSON line; the Go test judges it.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromiumPath, launchChromium } from './browser.mjs';
import { emit, main } from './scenario.mjs';

const STEP_MS = 20_000;
// How long a page may take to show what it must (its first polls, a
// three.js scene's module graph).
const SHOW_MS = 10_000;

await main(
  async () => {
    const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
    const shots = process.env.E2E_SCREENSHOTS;
    assert.ok(shots, 'E2E_SCREENSHOTS names no folder for the screenshots');
    mkdirSync(shots, { recursive: true });
    const observed = { pages: [], links: [], approve: {} };
    const browser = await launchChromium(chromiumPath(), STEP_MS);
    try {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      page.setDefaultTimeout(STEP_MS);
      let consoleErrors = [];
      let pageErrors = [];
      page.on('console', (m) => {
        if (m.type() === 'error') consoleErrors.push(`${m.text()} (${m.location()?.url ?? ''})`);
      });
      page.on('pageerror', (err) => pageErrors.push(String(err?.stack ?? err)));

      // The token, once, as serve's printed link gives it; kept for the tab.
      const first = new URL('/runs', plan.base);
      first.searchParams.set('token', plan.token);
      await page.goto(first.href);

      // visit opens path and waits for each expectation (one of its
      // alternatives shown) until SHOW_MS, then screenshots the page.
      const visit = async (entry) => {
        consoleErrors = [];
        pageErrors = [];
        const began = Date.now();
        const resp = await page.goto(new URL(entry.path, plan.base).href, { waitUntil: 'load' });
        const expect = (entry.expect ?? []).map((alts) => alts.filter(Boolean)).filter((alts) => alts.length);
        const missing = async () =>
          page.evaluate((expect) => {
            const text = document.body.innerText;
            const data = [];
            for (const el of document.querySelectorAll('*')) {
              for (const v of Object.values(el.dataset)) data.push(v);
            }
            const shown = (s) => text.includes(s) || data.some((v) => v.includes(s));
            return expect.filter((alts) => !alts.some(shown)).map((alts) => alts.join(' or '));
          }, expect);
        let notShown = await missing();
        // A page that already failed is not waited for.
        while (notShown.length && Date.now() - began < SHOW_MS && !consoleErrors.length && !pageErrors.length) {
          await page.waitForTimeout(250);
          notShown = await missing();
        }
        // Let the page's first polls and module loads settle before the
        // picture, so late errors are caught too.
        await page.waitForTimeout(500);
        const screenshot = join(shots, `${entry.name}.png`);
        await page.screenshot({ path: screenshot, fullPage: true });
        return {
          name: entry.name, path: entry.path, status: resp?.status() ?? 0, missing: notShown, garbage: await garbage(),
          consoleErrors: [...consoleErrors], pageErrors: [...pageErrors], screenshot, ms: Date.now() - began,
        };
      };

      // garbage is text a page printed from a value it did not have.
      const garbage = () =>
        page.evaluate(() => (document.getElementById('app')?.innerText ?? '').match(/\b(null|undefined|NaN)\b|\[object Object\]/g) ?? []);

      for (const p of plan.pages) observed.pages.push(await visit(p));

      // The run's waiting gate, approved on its page.
      const run = plan.run;
      if (run.skip) {
        observed.approve.skipped = true;
      } else {
        const a = observed.approve;
        consoleErrors = [];
        pageErrors = [];
        await page.goto(new URL(`/runs/${run.id}`, plan.base).href);
        await page.fill('#approver', run.approver);
        const current = () => page.evaluate(() => document.querySelector('#summary [data-run-id]')?.dataset.phase ?? '');
        const button = page.locator(`section[data-gate="${run.gate}"][data-gate-status="waiting"] button.approve`);
        await button.waitFor({ state: 'visible' });
        a.before = await current();
        a.temporalLink = await page.locator('#temporal-ui').getAttribute('href');
        // A reload would lose this mark.
        await page.evaluate(() => { window.__mfNoReload = true; });
        const decided = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === `/v1/runs/${run.id}/gates/${encodeURIComponent(run.gate)}/decision`);
        const clicked = Date.now();
        await button.click();
        const resp = await decided;
        a.decisionStatus = resp.status();
        a.decision = await resp.json().catch(() => null);
        try {
          await page.waitForFunction((next) => document.querySelector('#summary [data-run-id]')?.dataset.phase === next, run.next, { timeout: 30_000 });
          a.movedMs = Date.now() - clicked;
        } catch {}
        a.after = await current();
        a.reloaded = !(await page.evaluate(() => window.__mfNoReload === true));
        await page.waitForTimeout(500);
        const screenshot = join(shots, 'runs-id-after-approval.png');
        await page.screenshot({ path: screenshot, fullPage: true });
        a.seen = { name: 'runs-id-after-approval', path: `/runs/${run.id}`, status: 200, missing: [], garbage: await garbage(), consoleErrors: [...consoleErrors], pageErrors: [...pageErrors], screenshot };
      }

      for (const l of plan.links) observed.links.push(await visit(l));
    } finally {
      await browser.close();
      emit(observed);
    }
  },
  { timeoutMs: 170_000 },
);
