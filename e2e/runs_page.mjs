// Usage: E2E_OPERATOR_TOKEN=TOKEN node runs_page.mjs BASE_URL RUN_ID APPROVER
//
// Decides a design-flow run's waiting gate on metaforge's /runs page as a
// person would, in headless Chromium driven by playwright-core: opens
// BASE_URL/runs?token=TOKEN (the link metaforge serve prints), types APPROVER into "Your name", waits for the row of
// RUN_ID, checks it shows the run's phase, its gate waiting with its
// criteria, and a link to the run's page in the Temporal UI, clicks the
// gate's approve button, and waits for the decision's answer. Prints one
// JSON line of what it saw; exits non-zero on any failed expectation.
import assert from 'node:assert/strict';
import { chromiumPath, launchChromium } from './browser.mjs';
import { emit, main } from './scenario.mjs';

const STEP_MS = 30_000;

await main(
  async () => {
    const [base, runID, approver] = process.argv.slice(2);
    assert.ok(base && runID && approver, 'usage: node runs_page.mjs BASE_URL RUN_ID APPROVER');
    const exe = chromiumPath();
    const observed = { runId: runID };
    const browser = await launchChromium(exe, STEP_MS);
    try {
      const page = await (await browser.newContext()).newPage();
      page.setDefaultTimeout(STEP_MS);
      const pageErrors = [];
      page.on('pageerror', (err) => pageErrors.push(String(err?.stack ?? err)));
      const url = new URL('/runs', base);
      url.searchParams.set('token', process.env.E2E_OPERATOR_TOKEN ?? '');
      const resp = await page.goto(url.href);
      assert.equal(resp?.status(), 200, `GET /runs: HTTP ${resp?.status()}`);
      observed.addressAfterLoad = page.url();
      await page.fill('#approver', approver);
      const row = page.locator(`tr[data-run-id="${runID}"]`);
      await row.waitFor({ state: 'visible' });
      observed.rowText = (await row.innerText()).trim();
      observed.temporalLink = await row.locator('a.temporal-ui').getAttribute('href');
      observed.runLink = await row.locator('a.run-link').getAttribute('href');
      await row.locator('button.approve').waitFor({ state: 'visible' });
      observed.buttons = await row.locator('button').allInnerTexts();
      const isDecision = (r) => new URL(r.url()).pathname.startsWith(`/v1/runs/${runID}/gates/`) && r.method() === 'POST';
      const decided = page.waitForResponse((r) => isDecision(r.request()));
      // The page refreshes every 3 s; click again if a refresh ate a click.
      for (let clicks = 1; ; clicks++) {
        const sent = page.waitForRequest(isDecision, { timeout: 3_000 });
        await row.locator('button.approve').click();
        try {
          await sent;
          break;
        } catch (err) {
          if (clicks >= 3) throw err;
        }
      }
      const decision = await decided;
      observed.decisionStatus = decision.status();
      observed.decisionRequest = decision.request().postDataJSON();
      observed.decisionAuthorization = (await decision.request().allHeaders()).authorization ?? '';
      observed.decisionResponse = await decision.json().catch(() => null);
      observed.pageErrors = pageErrors;
    } finally {
      await browser.close();
      emit(observed);
    }
  },
  { timeoutMs: 120_000 },
);
