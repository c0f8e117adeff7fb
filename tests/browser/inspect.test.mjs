// Inspect in real Chromium, on the demo run.sh serves (the real `pulse
// serve`, cross-origin isolated): the demo's Substack copy opened in the
// tab, its tables listed, the agent log paged, filtered (status = running)
// and faceted (kind), a query joining goal_run_facts and
// background_agent_log on pulse_run_id, the CSV export read back by a real
// CSV reader (Python's), DELETE / UPDATE / ATTACH / PRAGMA journal_mode
// each refused in one line with the copy's bytes unchanged, a runaway
// recursive query cancelled within a second while the page stays
// responsive, a reload that keeps the view, keyboard only, axe-core with no
// serious or critical violation; at 1280 and 390 px (screenshots
// tests/artifacts/inspect_*.png). Then a snapshot of the served workflow
// taken through the owner-only route and inspected; and, on a static server
// without cross-origin isolation, Cancel ending the worker instead.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { ROOT } from '../node/helpers.mjs';
import { startServer, makeTempDir, PULSE_BIN } from '../server/helpers.mjs';
import { browserSkip, launchBrowser, screenshot, startStaticServer, allowConsoleErrors } from './helpers.mjs';
import { vendorWeb } from '../../scripts/vendor-web.mjs';

const skip = browserSkip(import.meta.url, { pulse: true });
const opts = { skip, timeout: 240000 };
const AXE = join(ROOT, 'node_modules', 'axe-core', 'axe.min.js');

let tmp;
let ws;
let server;
let context;
let page;

before(async () => {
  if (skip) return;
  vendorWeb();
  tmp = makeTempDir('pulse-inspect-');
  ws = join(tmp.dir, 'demo');
  const made = spawnSync('node', [join(ROOT, 'scripts', 'demo_workspace.mjs'), ws, '--pulse', PULSE_BIN], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  server = await startServer(ws, ['--no-tick', '--now-file', join(ws, '.pulse', 'demo-now')]);
  context = await launchBrowser(join(tmp.dir, 'profile'));
  page = context.pages()[0] || await context.newPage();
});

after(async () => {
  if (context) await context.close();
  if (server && !server.stopped) await server.stop();
  if (tmp) tmp.cleanup();
});

const demoDb = () => join(ws, 'Workflow', 'substack', 'db', 'db.sqlite');

// The copy's stored bytes, read from OPFS by the page itself (the pool's
// slot whose header names "/substack"): a hash.
async function copyHash(p, name) {
  const bytes = await p.evaluate(async (copy) => {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('pulse-db-pool');
    for await (const [, h] of dir.entries()) {
      const f = await h.getFile();
      const head = new Uint8Array(await f.slice(0, 512).arrayBuffer());
      const path = new TextDecoder().decode(head.subarray(0, head.indexOf(0)));
      if (path === `/${copy}`) return [...new Uint8Array(await f.arrayBuffer())];
    }
    return null;
  }, name);
  assert.ok(bytes, `no OPFS slot holds ${name}`);
  return createHash('sha256').update(Buffer.from(bytes)).digest('hex');
}

// axe-core's serious and critical violations inside Inspect (the shell
// around it is the other tab tests' to check).
async function axeSerious(p) {
  if (!await p.evaluate(() => !!window.axe)) await p.addScriptTag({ content: readFileSync(AXE, 'utf8') });
  const found = await p.evaluate(async () => (await window.axe.run({ include: [['#inspect']] }, { resultTypes: ['violations'] })).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`));
  return found;
}

async function pageWidthOk(p) {
  return p.evaluate(() => document.documentElement.scrollWidth <= innerWidth);
}

async function runSql(p, sql) {
  const box = p.getByRole('textbox', { name: /SQL/ });
  await box.fill(sql);
  await p.getByRole('button', { name: 'Run', exact: true }).click();
}

test('the demo\'s Substack copy in Inspect at 1280 px: tables, the agent log paged, filtered, faceted; a join; CSV; refusals; Cancel; reload', opts, async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${server.url}?nosw#token=${server.ownerToken}`);
  await page.goto(`${server.url}?nosw#/local`);
  await page.locator('#file-input').setInputFiles(demoDb());
  await page.waitForURL(/#\/copy\/substack$/);
  // A new user meets Inspect among the open workflow's links.
  await page.locator('nav.view-links').getByRole('link', { name: 'Inspect', exact: true }).click();
  await page.waitForURL(/#\/copy\/substack\/inspect$/);
  const objects = page.getByRole('navigation', { name: 'Tables and views' });
  const logButton = objects.getByRole('button', { name: /^background_agent_log/ });
  await logButton.waitFor();
  // The rows from the b-tree at once, the exact count next.
  await logButton.filter({ hasText: /\d rows$/ }).waitFor();
  const logRows = Number((await logButton.innerText()).split('\n')[1].replace(/[^\d]/g, ''));
  assert.ok(logRows > 100, `the demo's agent log has ${logRows} rows: more than a page`);
  assert.match(await objects.getByRole('button', { name: /^goal_run_facts/ }).innerText(), /\d+ rows/);
  await screenshot(page, 'inspect_tables');

  // The agent log, a page at a time.
  await logButton.click();
  const pageLine = page.locator('#page-line');
  await pageLine.filter({ hasText: '100 rows' }).waitFor();
  const rows = page.locator('#inspect-table-view table.inspect-table tbody tr');
  assert.equal(await rows.count(), 100);
  const firstPage = await rows.first().innerText();
  await page.getByRole('button', { name: 'Next', exact: true }).click();
  await page.waitForFunction((before) => document.querySelector('#inspect-table-view tbody tr')?.innerText !== before, firstPage);
  assert.match(page.url(), /[?&]a=/, 'the page\'s cursor is in the address');
  await page.getByRole('button', { name: 'Previous', exact: true }).click();
  await page.waitForFunction((before) => document.querySelector('#inspect-table-view tbody tr')?.innerText === before, firstPage);
  // Column types under each name; a JSON result folded, open on click.
  assert.match(await page.locator('#inspect-table-view thead').innerText(), /status\s*TEXT/);
  await page.getByRole('button', { name: 'Sort by started_at' }).click();
  await page.waitForURL(/s=started_at/);

  // Filter status = running: the interrupted run's two agents (and any other).
  await page.locator('#filter-col').selectOption('status');
  await page.locator('#filter-op').selectOption('eq');
  await page.locator('#filter-value').fill('running');
  await page.getByRole('button', { name: 'Add filter' }).click();
  await page.waitForURL(/f=status~eq~running/);
  await page.waitForFunction(() => [...document.querySelectorAll('#inspect-table-view tbody tr')].length > 0
    && [...document.querySelectorAll('#inspect-table-view tbody tr')].every((tr) => /\trunning\t/.test(`\t${tr.innerText}\t`)));
  const running = await rows.count();
  assert.ok(running >= 2, `${running} running rows`);
  // Facet kind among them.
  await page.locator('#facet-col').selectOption('kind');
  await page.getByRole('button', { name: 'Show top values' }).click();
  const facets = page.locator('#facet-values .facet-value');
  await facets.first().waitFor();
  const facetTexts = await facets.allInnerTexts();
  assert.ok(facetTexts.some((t) => /^call_sub_agent\s+\d+/.test(t)), facetTexts.join(' | '));
  const facetSum = facetTexts.reduce((s, t) => s + Number(t.split(/\s+/).pop().replace(/,/g, '')), 0);
  assert.equal(facetSum, running);
  await screenshot(page, 'inspect_agent_log_running');

  // Reload keeps the view: the table, the sort, the filter, the facet.
  const address = page.url();
  await page.reload();
  await page.locator('#facet-values .facet-value').first().waitFor();
  assert.equal(page.url(), address);
  assert.match(await page.locator('.filter-chips').innerText(), /status = running/);
  assert.equal(await rows.count(), running);

  // JSON results fold and open on click (drop the filter, find the JSON row).
  await page.getByRole('button', { name: /^Remove the filter status/ }).click();
  await page.locator('#filter-col').selectOption('agent_id');
  await page.locator('#filter-value').fill('collect-signups');
  await page.getByRole('button', { name: 'Add filter' }).click();
  const json = page.locator('#inspect-table-view .json-toggle').first();
  await json.waitFor();
  assert.equal(await json.getAttribute('aria-expanded'), 'false');
  assert.match(await json.innerText(), /^\{…\} 4 keys$/);
  await json.click();
  assert.match(await page.locator('#inspect-table-view .json-open').innerText(), /"signups": 0/);

  // The SQL console: a join of goal_run_facts and background_agent_log on pulse_run_id.
  await page.getByRole('button', { name: 'SQL', exact: true }).click();
  await runSql(page, `SELECT f.run_id, f.status AS run_status, a.agent_id, a.kind, a.status
FROM goal_run_facts f JOIN background_agent_log a ON a.pulse_run_id = f.run_id
ORDER BY f.run_id, a.started_at`);
  const status = page.locator('#query-status');
  await status.filter({ hasText: /^\d+ rows? · [\d.]+ ms/ }).waitFor();
  const joined = await page.locator('#inspect-sql-view tbody tr').allInnerTexts();
  assert.ok(joined.some((t) => t.startsWith('r-0114\tfailed\tcollect-signups')), joined.join('\n'));
  assert.match(page.url(), /v=sql/);
  await screenshot(page, 'inspect_sql_join');

  // CSV of a result whose cells hold commas, quotes, newlines and non-ASCII, read back by Python's csv.
  await runSql(page, "SELECT agent_id, result FROM background_agent_log WHERE agent_id IN ('collect-signups', 'summarize-week', 'translate-intro') ORDER BY agent_id");
  await status.filter({ hasText: /^3 rows/ }).waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'CSV', exact: true }).click()]);
  const csvPath = join(tmp.dir, 'result.csv');
  await download.saveAs(csvPath);
  const py = spawnSync('python3', ['-c', 'import csv, json, sys; print(json.dumps(list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8"), strict=True))))', csvPath], { encoding: 'utf8' });
  assert.equal(py.status, 0, py.stderr);
  const parsed = JSON.parse(py.stdout);
  assert.deepEqual(parsed[0], ['agent_id', 'result']);
  assert.deepEqual(parsed.slice(1), [
    ['collect-signups', '{"signups": 0, "source": "subscriber export", "retry": true, "note": "the export timed out"}'],
    ['summarize-week', 'Drafted 3 posts: "Why we write", "Tools, tips & tricks", "Q&A"\nNext: schedule them'],
    ['translate-intro', 'Bonjour, naïve café — 東京の読者へ, "welcome", 🐎'],
  ]);

  // Writes are refused in one line; the stored copy's bytes do not change.
  const hash = await copyHash(page, 'substack');
  for (const [sql, re] of [
    ['DELETE FROM background_agent_log', /^Refused: DELETE from background_agent_log; Inspect only reads this copy and never changes it$/],
    ["UPDATE background_agent_log SET status = 'done'", /^Refused: UPDATE of background_agent_log\.status;/],
    ["ATTACH DATABASE 'other.db' AS other", /^Refused: ATTACH of "other\.db";/],
    ['PRAGMA journal_mode = WAL', /^Refused: PRAGMA journal_mode = WAL;/],
  ]) {
    await runSql(page, sql);
    const error = page.locator('#query-error');
    await error.waitFor();
    const text = await error.innerText();
    assert.match(text, re, sql);
    assert.ok(!text.includes('\n'), `${sql}: one line`);
  }
  await screenshot(page, 'inspect_refused');
  assert.equal(await copyHash(page, 'substack'), hash, 'the copy is byte for byte what it was');
  await runSql(page, 'SELECT count(*) FROM background_agent_log');
  await status.filter({ hasText: /^1 row/ }).waitFor();
  assert.equal(Number(await page.locator('#inspect-sql-view tbody td').first().innerText()), logRows);

  // A runaway recursive query: Cancel stops it within a second; the page answers meanwhile.
  await runSql(page, 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r');
  const cancel = page.getByRole('button', { name: 'Cancel', exact: true });
  await cancel.waitFor();
  await page.waitForTimeout(400);
  assert.equal(await page.evaluate(() => document.querySelector('#query-status').textContent), 'Running…', 'the page answers while the query runs');
  const t0 = Date.now();
  await cancel.click();
  await status.filter({ hasText: /^Cancelled after/ }).waitFor({ timeout: 1000 });
  const took = Date.now() - t0;
  assert.ok(took < 1000, `cancelled ${took} ms after the click`);
  assert.equal(await page.evaluate(() => crossOriginIsolated), true, 'pulse serve makes the tab cross-origin isolated');
  // The same worker goes on (the shared flag stopped the statement, nothing was ended).
  await runSql(page, 'SELECT 41 + 1 AS answer');
  await status.filter({ hasText: /^1 row/ }).waitFor();
  assert.equal(await page.locator('#inspect-sql-view tbody td').first().innerText(), '42');

  // Explain on request.
  await page.getByRole('textbox', { name: /SQL/ }).fill("SELECT * FROM background_agent_log WHERE status = 'running'");
  await page.getByRole('button', { name: 'Explain query plan' }).click();
  await page.locator('#query-plan').filter({ hasText: /background_agent_log_by_status|USING INDEX/ }).waitFor();

  // A shared link to a query opens it and runs it.
  await runSql(page, "SELECT kind, count(*) AS n FROM background_agent_log GROUP BY kind ORDER BY kind");
  await status.filter({ hasText: /rows? ·/ }).waitFor();
  const link = page.url();
  const second = await context.newPage();
  await second.setViewportSize({ width: 1280, height: 900 });
  await second.goto(link);
  await second.locator('#query-status').filter({ hasText: /rows? ·/ }).waitFor();
  assert.equal(await second.getByRole('textbox', { name: /SQL/ }).inputValue(), 'SELECT kind, count(*) AS n FROM background_agent_log GROUP BY kind ORDER BY kind');
  await second.close();

  assert.deepEqual(await axeSerious(page), []);
  assert.ok(await pageWidthOk(page));
});

test('at 390 px: the same view fits the phone, keyboard only reaches and runs everything, axe-core finds nothing serious', opts, async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${server.url}?nosw#/copy/substack/inspect?t=background_agent_log&f=status~eq~running&x=kind`);
  await page.locator('#facet-values .facet-value').first().waitFor();
  assert.ok(await pageWidthOk(page), 'nothing wider than the screen');
  await screenshot(page, 'inspect_390_table');
  assert.deepEqual(await axeSerious(page), []);

  // Keyboard only: Tab to the SQL switch, Enter; Tab into the box, type, Ctrl+Enter.
  await page.locator('#inspect-title').click();
  const tabTo = async (match, limit = 80) => {
    for (let i = 0; i < limit; i++) {
      await page.keyboard.press('Tab');
      const here = await page.evaluate(() => {
        const el = document.activeElement;
        const outline = el ? getComputedStyle(el).outlineStyle : 'none';
        return { text: el ? (el.getAttribute('aria-label') || el.textContent || '').trim() : '', id: el && el.id, outline };
      });
      if (match(here)) return here;
    }
    throw new Error('not reached with Tab');
  };
  const sqlSwitch = await tabTo((h) => h.text === 'SQL');
  assert.notEqual(sqlSwitch.outline, 'none', 'the focused control shows its outline');
  await page.keyboard.press('Enter');
  await page.waitForURL(/v=sql/);
  await tabTo((h) => h.id === 'inspect-sql');
  await page.keyboard.press('Control+A');
  await page.keyboard.type("SELECT agent_id FROM background_agent_log WHERE status = 'running' ORDER BY agent_id");
  await page.keyboard.press('Control+Enter');
  // The result, or an error that says why there is none.
  await page.locator('#query-status').filter({ hasText: /rows? ·/ }).or(page.locator('#query-error')).waitFor();
  assert.equal(await page.locator('#query-error').count(), 0, await page.locator('#inspect-sql-view').innerText());
  assert.match(await page.locator('#inspect-sql-view tbody').innerText(), /export-subscribers/);
  assert.ok(await pageWidthOk(page));
  await screenshot(page, 'inspect_390_sql');
  assert.deepEqual(await axeSerious(page), []);
});

test('a served workflow: the owner takes a snapshot through the server and inspects it in the tab', opts, async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${server.url}?nosw#/w/substack/inspect`);
  await page.getByRole('button', { name: /Take a snapshot and inspect it/ }).click();
  await page.waitForURL(/#\/copy\/substack-snapshot\/inspect/, { timeout: 30000 });
  await page.getByRole('navigation', { name: 'Tables and views' }).getByRole('button', { name: /^background_agent_log/ }).waitFor();
  await screenshot(page, 'inspect_snapshot');
});

test('without cross-origin isolation Cancel ends the worker and a new one goes on', opts, async () => {
  const plain = await startStaticServer({ isolated: false });
  const other = await context.newPage();
  try {
    await other.setViewportSize({ width: 1280, height: 900 });
    await other.goto(`${plain.url}/?nosw#/local`);
    assert.equal(await other.evaluate(() => crossOriginIsolated), false);
    await other.locator('#file-input').setInputFiles(demoDb());
    await other.waitForURL(/#\/copy\/substack/);
    await other.goto(`${plain.url}/?nosw#/copy/substack/inspect?v=sql`);
    await other.getByRole('textbox', { name: /SQL/ }).waitFor();
    await runSql(other, 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r');
    await other.getByRole('button', { name: 'Cancel', exact: true }).click({ delay: 300 });
    await other.locator('#query-status').filter({ hasText: /^Cancelled after/ }).waitFor({ timeout: 1000 });
    await runSql(other, 'SELECT count(*) FROM goal_run_facts');
    await other.locator('#query-status').filter({ hasText: /^1 row/ }).waitFor();
  } finally {
    await other.close();
    await plain.close();
  }
});

test('offline, with no server: after one visit to the tab (Inspect never opened), a copy opens in Inspect, pages, filters and runs SQL', opts, async () => {
  const other = await context.newPage();
  try {
    await other.setViewportSize({ width: 1280, height: 900 });
    // One visit with the service worker, then one it controls; Inspect is not opened.
    await other.goto(`${server.url}#/local`);
    await other.evaluate(() => navigator.serviceWorker.ready.then(() => true));
    await other.goto(`${server.url}#/local`);
    await other.waitForFunction(() => !!navigator.serviceWorker.controller);
    await other.locator('.copies .copy[data-name="substack"]').waitFor();
    // No network, and no server at all.
    await context.setOffline(true);
    await server.stop();
    server.stopped = true;
    const allowed = allowConsoleErrors(context, /ERR_INTERNET_DISCONNECTED|ERR_CONNECTION_REFUSED|Failed to fetch/);
    try {
      await other.goto(`${server.url}#/copy/substack/inspect?t=background_agent_log&f=status~eq~running`);
      await other.locator('#inspect-table-view tbody tr').first().waitFor();
      const rows = await other.locator('#inspect-table-view tbody tr').allInnerTexts();
      assert.ok(rows.length >= 2 && rows.every((r) => /\trunning\t/.test(`\t${r}\t`)), rows.join('\n'));
      assert.equal(await other.evaluate(() => crossOriginIsolated), true, 'the cached page keeps its isolation');
      await other.getByRole('button', { name: 'SQL', exact: true }).click();
      await runSql(other, 'SELECT count(*) FROM goal_run_facts f JOIN background_agent_log a ON a.pulse_run_id = f.run_id');
      await other.locator('#query-status').filter({ hasText: /^1 row · / }).waitFor();
      assert.ok(Number(await other.locator('#inspect-sql-view tbody td').first().innerText()) > 100);
      await screenshot(other, 'inspect_offline');
    } finally {
      await context.setOffline(false);
      allowed();
    }
    await other.evaluate(async () => {
      for (const r of await navigator.serviceWorker.getRegistrations()) await r.unregister();
    });
  } finally {
    await other.close();
  }
});
