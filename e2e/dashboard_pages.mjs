// Usage: E2E_OPERATOR_TOKEN=TOKEN E2E_SCREENSHOTS=DIR node dashboard_pages.mjs BASE_URL PROJECT_ID SESSION_ID
//
// Reads the dashboard's project pages in headless Chromium as a person
// would: / (the project's row and its counts, the filter kept in the
// address), /projects/PROJECT_ID (the work-product tree at KEY@n, an item's
// history, evidence freshness), /requirements without and with ?project=
// (the picker, then each row's status), /bom (the roll-up figures, the
// flat and hierarchical views), /releases (the G8 gate kept open while a
// baseline made over REST appears without a reload), /sessions (its row
// links to the session's page) and /sessions/SESSION_ID (the calls with
// their stamps). Writes a PNG of each page into E2E_SCREENSHOTS and prints
// one JSON line of what it saw, with every console error and uncaught
// exception; exits non-zero on a failed expectation.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromiumPath, launchChromium } from './browser.mjs';
import { emit, main } from './scenario.mjs';

const STEP_MS = 30_000;

await main(
  async () => {
    const [base, project, session] = process.argv.slice(2);
    assert.ok(base && project && session, 'usage: node dashboard_pages.mjs BASE_URL PROJECT_ID SESSION_ID');
    const token = process.env.E2E_OPERATOR_TOKEN ?? '';
    const shots = process.env.E2E_SCREENSHOTS;
    assert.ok(shots, 'E2E_SCREENSHOTS names the folder for the screenshots');
    mkdirSync(shots, { recursive: true });
    const o = { consoleErrors: [], pageErrors: [], screenshots: [] };
    const browser = await launchChromium(chromiumPath(), STEP_MS);
    try {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      page.setDefaultTimeout(STEP_MS);
      page.on('console', (m) => {
        if (m.type() === 'error') o.consoleErrors.push(`${page.url()}: ${m.text()}`);
      });
      page.on('pageerror', (err) => o.pageErrors.push(`${page.url()}: ${String(err?.stack ?? err)}`));
      const open = async (path) => {
        const resp = await page.goto(new URL(path, base).href);
        assert.equal(resp?.status(), 200, `GET ${path}: HTTP ${resp?.status()}`);
      };
      const shot = async (name) => {
        const file = join(shots, `${name}.png`);
        await page.screenshot({ path: file, fullPage: true });
        o.screenshots.push(file);
      };
      const texts = (sel) => page.locator(sel).allInnerTexts();

      // /: the project's row, its counts, the filter in the address.
      await open(`/?token=${encodeURIComponent(token)}`);
      const row = page.locator(`tr[data-project-id="${project}"]`);
      await row.waitFor();
      o.home = {
        name: await row.locator('a.project-name').innerText(),
        openRuns: await row.locator('td[data-count="open_runs"]').innerText(),
        pendingApprovals: await row.locator('td[data-count="pending_approvals"]').innerText(),
        unverified: await row.locator('td[data-count="unverified_requirements"]').innerText(),
        links: await row.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href'))),
      };
      await page.fill('#filter', 'no such project');
      await page.locator(`tr[data-project-id="${project}"]`).waitFor({ state: 'detached' });
      o.home.filteredAddress = new URL(page.url()).search;
      await page.fill('#filter', o.home.name.slice(0, 5));
      await row.waitFor();
      o.home.filterKept = await page.inputValue('#filter');
      await shot('home');

      // /projects/{id}: the tree, an item's history, the evidence.
      await open(`/projects/${project}`);
      const cad = page.locator('li[data-item-key="CAD-BRACKET"] > a.item-ref');
      await cad.waitFor();
      o.project = { title: await page.locator('#project-title').innerText(), cadRef: await cad.innerText() };
      o.project.positions = await texts('li[data-item-type="hierarchy_node"] a.item-ref');
      await cad.click();
      await page.locator('#history tr[data-ref]').first().waitFor();
      o.project.historyRefs = await page.locator('#history tr[data-ref]').evaluateAll((rs) => rs.map((r) => r.dataset.ref));
      o.project.address = new URL(page.url()).search;
      o.project.evidence = await page.locator('#evidence tr[data-evidence-id]').evaluateAll((rs) =>
        Object.fromEntries(rs.map((r) => [r.querySelector('td').firstChild.textContent, r.dataset.freshness])),
      );
      await shot('project');
      await page.reload();
      await page.locator('#history tr[data-ref]').first().waitFor();
      o.project.historyAfterReload = await page.locator('#history h2').innerText();

      // /requirements: the picker without ?project=, the matrix with it.
      await open('/requirements');
      await page.locator(`ul.project-picker li[data-project-id="${project}"] a`).waitFor();
      o.picker = await page.locator('[role="status"]').first().innerText();
      await shot('requirements-picker');
      await page.locator(`ul.project-picker li[data-project-id="${project}"] a`).click();
      await page.locator('tr[data-requirement]').first().waitFor();
      o.requirements = {
        address: new URL(page.url()).search,
        statuses: await page.locator('tr[data-requirement]').evaluateAll((rs) => Object.fromEntries(rs.map((r) => [r.dataset.requirement, r.dataset.status]))),
        stiffEvidence: await page.locator('tr[data-requirement="stiff"] td').last().innerText(),
        staleEvidence: await page.locator('tr[data-requirement="no resonance"] td').last().innerText(),
      };
      await shot('requirements');

      // /bom: the roll-up figures, then both views.
      await open(`/bom?project=${project}`);
      const mass = page.locator('.rollup .figure[data-figure="mass_kg"]');
      await mass.waitFor();
      const figure = async (key) => page.locator(`.rollup .figure[data-figure="${key}"]`).first().getAttribute('data-value');
      o.bom = { mass: await figure('mass_kg'), cost: await figure('cost_usd'), peak: await figure('peak_w'), massText: await mass.first().innerText() };
      await page.locator('table.bom.flat tr[data-item-ref]').first().waitFor();
      o.bom.flatLines = await page.locator('table.bom.flat tr[data-item-ref]').count();
      o.bom.total = await page.locator('[data-total="cost_usd"]').innerText();
      await shot('bom-flat');
      await page.locator('.toggle a[data-view="hierarchical"]').click();
      await page.locator('table.bom.hierarchical tr').nth(1).waitFor();
      o.bom.address = new URL(page.url()).search;
      o.bom.hierarchicalRows = await page.locator('table.bom.hierarchical tbody tr').count();
      await shot('bom-hierarchical');

      // /releases: G8 open from the address stays open while a baseline
      // made over REST appears without a reload.
      await open(`/releases?project=${project}&gate=G8`);
      const g8 = page.locator('details[data-gate="G8"]');
      await g8.waitFor();
      o.releases = { gates: await page.locator('details[data-gate]').evaluateAll((ds) => ds.map((d) => d.dataset.gate)) };
      o.releases.emptyPackages = await page.locator('#packages').innerText();
      const made = await fetch(new URL('/v1/baselines', base), {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ project_id: project, reason: 'design review 1' }),
      });
      o.releases.baselineStatus = made.status;
      await page.locator('#baselines tr[data-baseline-id]').waitFor({ timeout: 20_000 });
      o.releases.baseline = await page.locator('#baselines tr[data-baseline-id]').innerText();
      o.releases.g8StillOpen = await g8.evaluate((d) => d.open);
      o.releases.address = new URL(page.url()).search;
      await shot('releases');

      // /sessions: its row links to the session's page.
      await open('/sessions');
      const link = page.locator(`tr.session a[href="/sessions/${session}"]`);
      await link.waitFor();
      await link.click();
      await page.waitForURL(`**/sessions/${session}`);
      await page.locator('#calls tr[data-tool-id]').first().waitFor();
      o.session = {
        client: await page.locator('td[data-field="client"]').innerText(),
        tools: await page.locator('#calls tr[data-tool-id]').evaluateAll((rs) => rs.map((r) => r.dataset.toolId)),
        firstCall: await page.locator('#calls tr[data-tool-id]').first().innerText(),
      };
      await shot('session');
    } finally {
      await browser.close();
      emit(o);
    }
  },
  { timeoutMs: 150_000 },
);
