// Usage: node approvals_page.mjs BASE_URL APPROVAL_ID APPROVER [TOOL_ID] [COMMENT]
//
// Decides one held call on metaforge's Approvals page as a person would, in
// headless Chromium driven by playwright-core: opens BASE_URL/approvals,
// types APPROVER into "Your name" (and COMMENT into "Comment"), waits for
// the row of APPROVAL_ID, checks it shows TOOL_ID (project.create unless
// given), clicks its Approve button, and waits until the page's status line
// says the call was approved by APPROVER. Prints one JSON line of what it
// saw; exits non-zero on any failed expectation.
//
// The browser is Debian's Chromium (apt-get install chromium, or bash
// deploy/test-deps.sh): $CHROMIUM_PATH, else /usr/bin/chromium, else
// /usr/bin/chromium-browser. playwright-core downloads none of its own.
import assert from 'node:assert/strict';
import { chromiumPath, launchChromium } from './browser.mjs';
import { emit, main } from './scenario.mjs';

const STEP_MS = 30_000;

async function step(name, fn) {
  try {
    return await fn();
  } catch (err) {
    err.message = `${name}: ${err.message}`;
    throw err;
  }
}

await main(
  async () => {
    const [base, id, approver, toolID = 'project.create', comment = ''] = process.argv.slice(2);
    assert.ok(base && id && approver, 'usage: node approvals_page.mjs BASE_URL APPROVAL_ID APPROVER [TOOL_ID] [COMMENT]');
    const observed = { approvalId: id, approver, chromium: chromiumPath() };
    const began = Date.now();

    const browser = await step('launch Chromium', () =>
      launchChromium(observed.chromium, STEP_MS),
    );
    try {
      observed.browserVersion = browser.version();
      const context = await browser.newContext();
      const page = await context.newPage();
      page.setDefaultTimeout(STEP_MS);
      const pageErrors = [];
      const consoleErrors = [];
      const failedRequests = [];
      page.on('pageerror', (err) => pageErrors.push(String(err?.stack ?? err)));
      page.on('console', (msg) => {
        if (msg.type() === 'error') consoleErrors.push(`${msg.text()} (${msg.location()?.url ?? ''})`);
      });
      page.on('response', (r) => {
        if (r.status() >= 400) failedRequests.push(`${r.request().method()} ${new URL(r.url()).pathname}: HTTP ${r.status()}`);
      });

      // Every text the status line shows, in order: the page overwrites
      // its own decision message with the next refresh's "N held calls",
      // so waiting on the live text alone could miss it.
      await page.addInitScript(() => {
        window.__statusLog = [];
        window.__statusAt = [];
        document.addEventListener('DOMContentLoaded', () => {
          const el = document.getElementById('status');
          if (!el) return;
          new MutationObserver(() => {
            window.__statusLog.push(el.textContent);
            window.__statusAt.push(Math.round(performance.now()));
          }).observe(el, {
            childList: true,
            characterData: true,
            subtree: true,
          });
        });
      });

      // The link metaforge serve prints: the page keeps the token and
      // takes it out of the address bar.
      const link = new URL('/approvals', base);
      link.searchParams.set('token', process.env.E2E_OPERATOR_TOKEN ?? '');
      const resp = await step('open /approvals?token=', () => page.goto(link.href));
      assert.equal(resp?.status(), 200, `GET /approvals: HTTP ${resp?.status()}`);
      observed.addressAfterLoad = page.url();
      observed.title = await page.title();

      await step('type the approver', async () => {
        await page.fill('#approver', approver);
        if (comment) await page.fill('#comment', comment);
      });

      const row = page.locator(`tr[data-approval-id="${id}"]`);
      await step(`wait for the row of ${id}`, () => row.waitFor({ state: 'visible' }));
      observed.rowSeenMs = Date.now() - began;
      observed.rowText = (await row.innerText()).trim();
      assert.ok(observed.rowText.includes(toolID), `the row of ${id} does not show ${toolID}: ${JSON.stringify(observed.rowText)}`);
      assert.ok(observed.rowText.includes(id), `the row of ${id} does not show its approval id: ${JSON.stringify(observed.rowText)}`);
      observed.rowCells = await row.locator('td').allInnerTexts();
      observed.rowsBefore = await page.locator('tr[data-approval-id]').count();

      const decisionPath = `/v1/approvals/${encodeURIComponent(id)}/decision`;
      const isDecision = (r) => new URL(r.url()).pathname === decisionPath && r.method() === 'POST';
      const decided = page.waitForResponse((r) => isDecision(r.request()));
      // The page rebuilds the table every 2 s; a click whose mousedown and
      // mouseup straddle a rebuild lands on no button and sends nothing. A
      // person clicks again; so does this, if no POST went out.
      observed.clicks = 0;
      await step('click Approve', async () => {
        for (;;) {
          const sent = page.waitForRequest(isDecision, { timeout: 3_000 });
          await row.locator('button.approve').click();
          observed.clicks++;
          try {
            await sent;
            return;
          } catch (err) {
            if (observed.clicks >= 3) throw new Error(`${observed.clicks} clicks sent no POST ${decisionPath}: ${err.message}`);
          }
        }
      });
      const decision = await step(`POST ${decisionPath}`, () => decided);
      observed.decisionStatus = decision.status();
      observed.decisionRequest = decision.request().postDataJSON();
      observed.decisionAuthorization = (await decision.request().allHeaders()).authorization ?? '';
      observed.decisionResponse = await decision.json().catch(() => null);
      assert.equal(observed.decisionStatus, 200, `POST ${decisionPath}: HTTP ${observed.decisionStatus}: ${JSON.stringify(observed.decisionResponse)}`);

      const want = `${id}: approved by operator:${approver}`;
      await step(`wait for the status line to say "${want}"`, () =>
        page.waitForFunction((w) => window.__statusLog.some((s) => s.includes(w)), want, { polling: 100 }),
      );
      observed.approvedSeenMs = Date.now() - began;

      // The decided call leaves the queue: the row goes at a refresh.
      await step(`wait for the row of ${id} to go`, () => row.waitFor({ state: 'detached' }));
      observed.rowGoneMs = Date.now() - began;
      observed.statusLog = await page.evaluate(() => window.__statusLog);
      // When each status text appeared, in ms since the page started.
      observed.statusAtMs = await page.evaluate(() => window.__statusAt);
      observed.finalStatus = await page.locator('#status').innerText();
      observed.storedApprover = await page.evaluate(() => localStorage.getItem('metaforge.approver'));
      observed.pageErrors = pageErrors;
      observed.consoleErrors = consoleErrors;
      observed.failedRequests = failedRequests;
      assert.deepEqual(pageErrors, [], 'the page threw');
      assert.equal(observed.storedApprover, approver, 'the approver name was not kept in localStorage');
    } finally {
      await browser.close();
    }
    observed.tookMs = Date.now() - began;
    emit(observed);
  },
  { timeoutMs: 150_000 },
);
