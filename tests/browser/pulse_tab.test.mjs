// The Pulse tab in real headless Chromium (Debian's /usr/bin/chromium driven
// by playwright-core), local-copy mode, on the real WASM core in the real
// Worker with OPFS storage. The Substack fixture database is built with the
// real `pulse` program (tests/fixtures/), plus pending decisions with
// recommendations and agent-log rows made with the same CLI. Every test saves
// a screenshot to tests/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '../node/helpers.mjs';
import { browserSkip, allowConsoleErrors, startStaticServer, launchBrowser, screenshot, openCard } from './helpers.mjs';
import { buildPulseTabFixture, FIXTURE_NOW, SEED_ALARMS } from './pulse_tab_fixture.mjs';
import initSqlJs from 'sql.js';
import { vendorWeb } from '../../scripts/vendor-web.mjs';

const skip = browserSkip(import.meta.url, { pulse: true });
const opts = { skip, timeout: 120000 };

let tmp;
let server;
let context;
let fixture;
const PAGE = `/?now=${FIXTURE_NOW}&mode=local&nosw`;

before(async () => {
  if (skip) return;
  vendorWeb();
  tmp = makeTempDir('pulse-tab-');
  fixture = await buildPulseTabFixture(tmp.dir);
  server = await startStaticServer();
  context = await launchBrowser(join(tmp.dir, 'profile'));
});

after(async () => {
  if (context) await context.close();
  if (server) await server.close();
  if (tmp) tmp.cleanup();
});

async function openPage() {
  const page = context.pages()[0] || await context.newPage();
  await page.setViewportSize({ width: 1400, height: 1000 });
  page.removeAllListeners('pageerror');
  page.on('pageerror', (e) => console.error('pageerror:', e.message));
  await page.goto(server.url + PAGE);
  await page.locator('#choose-file:not([disabled])').waitFor();
  return page;
}

async function importFile(page, file) {
  await page.locator('#file-input').setInputFiles(file);
}

// The alarms of the open copy's dashboard. While a file is being stored the
// tab shows a preview goal card of its own (same id), which goes away when
// the copy opens; the dashboard's view links are what say it is the copy.
async function alarmTexts(page) {
  await page.locator('nav.view-links').waitFor();
  await page.locator('#goal-status .alarms').waitFor();
  return page.locator('#goal-status .alarm .alarm-text').allInnerTexts();
}

test('importing the Substack database shows the seed\'s alarm sentences on the goal status card', opts, async () => {
  const page = await openPage();
  // The whole workflow folder (webkitdirectory): the tab takes its db/db.sqlite.
  await page.locator('#folder-input').setInputFiles(fixture.workflowDir);
  await page.locator('#goal-status .status-badge').waitFor();
  assert.equal(await page.locator('#goal-status .status-badge').innerText(), 'Not measured');
  const alarms = (await alarmTexts(page)).map((t) => t.replace(/^!\s*/, '').trim());
  for (const sentence of SEED_ALARMS) assert.ok(alarms.includes(sentence), `missing alarm: ${sentence}\n got: ${alarms.join('\n')}`);
  const card = await page.locator('#goal-status').innerText();
  assert.match(card, /412/);
  assert.match(card, /17 Sep 09:30/);
  // The other cards computed by the same core (folded below the goal card).
  for (const id of ['readings', 'routes']) await openCard(page, id);
  await page.locator('#readings .chart canvas').first().waitFor();
  assert.match(await page.locator('#routes').innerText(), /growth_funnel/);
  assert.match(await page.locator('#needs-you').innerText(), /Pulse recommends/i);
  await page.locator('#agent-log .agent-group').first().waitFor();
  assert.match(await page.locator('#agent-log').innerText(), /stuck/);
  assert.equal(await page.locator('.copies .copy').count(), 1);
  await screenshot(page, 'pulse_tab_goal_status');
});

test('after a reload the copy is still listed and opens to the same card', opts, async () => {
  const page = await openPage();
  const copy = page.locator('.copies .copy', { hasText: fixture.copyName });
  await copy.waitFor();
  assert.match(await copy.innerText(), /imported/);
  await copy.getByRole('button', { name: `Open ${fixture.copyName}` }).click();
  const alarms = await alarmTexts(page);
  assert.equal(alarms.length, SEED_ALARMS.length);
  await screenshot(page, 'pulse_tab_after_reload');
});

test('the background agent log: per session and per Pulse run, oldest first, running and stuck rows marked, filters', opts, async () => {
  const page = await openPage();
  await page.getByRole('button', { name: `Open ${fixture.copyName}` }).click();
  const card = page.locator('#agent-log');
  await card.locator('.agent-group').first().waitFor();
  // Per session, sessions and rows oldest first.
  const groups = await card.locator('.agent-group h3').allInnerTexts();
  assert.match(groups[0], /Pulse's goal lead, generation 1 schedule-goallead--substack-g1/);
  assert.match(groups[1], /A Builder chat builder-7f3a/);
  const agents = await card.locator('.agent-group').first().locator('tbody tr td:nth-child(2) strong').allInnerTexts();
  assert.deepEqual(agents, ['Gate', 'Reviewer', 'Fixer']);
  // The Fixer never finished: stuck; the research helper started 10 minutes ago: running.
  const row = (name) => card.locator('tr.agent-row').filter({ has: page.locator('strong', { hasText: new RegExp(`^${name}$`) }) });
  assert.match(await row('Fixer').innerText(), /stuck \(running 26 h 55 min\)/);
  assert.match(await row('research helper').innerText(), /\brunning\b/);
  assert.doesNotMatch(await row('research helper').innerText(), /stuck/);
  assert.match(await row('Gate').innerText(), /completed/);
  await screenshot(page, 'pulse_tab_agent_log');
  // Per Pulse run.
  await card.getByLabel('Group by', { exact: true }).selectOption('run');
  await card.locator('.agent-group h3', { hasText: 'Pulse run p-1006' }).waitFor();
  assert.equal(await card.locator('.agent-group', { hasText: 'Pulse run p-1006' }).locator('tbody tr').count(), 3);
  // Filters: stuck only; one session.
  await card.getByLabel('stuck only').check();
  await page.waitForFunction(() => document.querySelectorAll('#agent-log tbody tr').length === 1);
  assert.match(await card.locator('tbody tr').innerText(), /Fixer/);
  await card.getByLabel('stuck only').uncheck();
  await card.getByLabel('Session', { exact: true }).selectOption('builder-7f3a');
  await page.waitForFunction(() => document.querySelectorAll('#agent-log tbody tr').length === 1
    && /research helper/.test(document.querySelector('#agent-log tbody tr').textContent));
});

test('accepting a recommendation moves the decision into the log', opts, async () => {
  const page = await openPage();
  await page.getByRole('button', { name: `Open ${fixture.copyName}` }).click();
  const needs = page.locator('#needs-you');
  const item = needs.locator('.decision', { hasText: fixture.decisionQuestion });
  await item.waitFor();
  const logBefore = await page.locator('#decision-log').innerText();
  assert.doesNotMatch(logBefore, new RegExp(escapeRe(fixture.decisionQuestion)));
  await item.getByRole('button', { name: /^Accept/ }).click();
  await openCard(page, 'decision-log');
  const entry = page.locator('#decision-log .log-entry', { hasText: fixture.decisionQuestion });
  await entry.waitFor();
  assert.match(await entry.innerText(), new RegExp(`Accepted Pulse's recommendation: ${escapeRe(fixture.recommendedOption)}`));
  assert.equal(await needs.locator('.decision', { hasText: fixture.decisionQuestion }).count(), 0);
  await screenshot(page, 'pulse_tab_accepted');
});

test('goal memory is readable and editable in the copy', opts, async () => {
  const page = await openPage();
  await page.getByRole('button', { name: `Open ${fixture.copyName}` }).click();
  const card = page.locator('#memory');
  await openCard(page, 'memory');
  await card.getByRole('button', { name: 'Edit' }).waitFor();
  await card.getByRole('button', { name: 'Edit' }).click();
  const area = card.locator('textarea');
  await area.waitFor();
  await page.waitForFunction(() => document.activeElement.tagName === 'TEXTAREA', null, { timeout: 5000 });
  const before = await area.inputValue();
  const line = '- The owner: subscribers are counted on Mondays only.';
  await area.fill(`${before.replace(/\s*$/, '')}\n\n## Owner notes\n${line}\n`);
  await card.getByRole('button', { name: 'Save' }).click();
  await card.locator('.memory-text', { hasText: 'subscribers are counted on Mondays only' }).waitFor();
  assert.match(await card.innerText(), /Owner notes/);
  // Stored in the copy: a reload shows it.
  await page.reload();
  await page.getByRole('button', { name: `Open ${fixture.copyName}` }).click();
  await openCard(page, 'memory');
  await page.locator('#memory .memory-text', { hasText: 'subscribers are counted on Mondays only' }).waitFor();
  await screenshot(page, 'pulse_tab_memory');
});

test('export downloads the changed copy; imported again it shows the answer; delete removes only that copy', opts, async () => {
  const page = await openPage();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: `Export ${fixture.copyName}` }).click(),
  ]);
  const saved = join(tmp.dir, 'exported.db.sqlite');
  await download.saveAs(saved);
  const bytes = readFileSync(saved);
  assert.equal(bytes.subarray(0, 15).toString('latin1'), 'SQLite format 3');
  // Round trip: the exported file, imported as a second copy, carries the answer.
  await importFile(page, saved);
  // Named after the workflow it holds, never over the first.
  const secondName = 'substack-2';
  const second = page.locator(`.copies .copy.open[data-name="${secondName}"]`);
  await second.waitFor();
  await openCard(page, 'decision-log');
  await page.locator('#decision-log .log-entry', { hasText: fixture.decisionQuestion }).waitFor();
  assert.equal(await page.locator('.copies .copy').count(), 2);
  await screenshot(page, 'pulse_tab_two_copies');
  await second.getByRole('button', { name: `Delete ${secondName}` }).click();
  await second.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.waitForFunction((n) => !document.querySelector(`.copies .copy[data-name="${n}"]`), secondName);
  assert.equal(await page.locator('.copies .copy').count(), 1);
  assert.equal(await page.locator(`.copies .copy[data-name="${fixture.copyName}"]`).count(), 1);
});

test('a large database shows a progress bar while it is stored', opts, async () => {
  const page = await openPage();
  // 60 MB: the fixture grown with background-agent rows (sql.js, in Node).
  const big = join(tmp.dir, 'large.sqlite');
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(fixture.dbPath));
  db.run('BEGIN');
  db.run(`INSERT INTO background_agent_log (workspace_path, session_id, agent_id, name, kind, status, result, started_at, completed_at, updated_at)
    SELECT 'Workflow/substack', 'old-session-' || (v / 100), 'agent-' || v, 'reviewer', 'review', 'completed', ?, '2025-01-01T00:00:00Z',
           '2025-01-01T00:01:00Z', '2025-01-01T00:01:00Z'
    FROM (WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 40000) SELECT v FROM s)`, ['x'.repeat(1400)]);
  db.run('COMMIT');
  writeFileSync(big, db.export());
  db.close();
  await importFile(page, big);
  const bar = page.locator('#import-progress');
  // Read the label in the same tick that finds the bar (it goes once stored).
  const label = await (await page.waitForFunction(() => document.querySelector('#import-progress')
    && /Storing/.test(document.querySelector('.progress').textContent) && document.querySelector('.progress').textContent,
  null, { timeout: 10000, polling: 'raf' })).jsonValue();
  assert.match(label, /Storing substack-2 \(\d+\.\d MB\)… \d+%/);
  await screenshot(page, 'pulse_tab_progress');
  await page.locator('.copies .copy.open[data-name="substack-2"]').waitFor({ timeout: 60000 });
  await page.locator('#goal-status .alarms').waitFor();
  await bar.waitFor({ state: 'detached' });
  const copy = page.locator('.copies .copy[data-name="substack-2"]');
  await copy.getByRole('button', { name: 'Delete substack-2' }).click();
  await copy.getByRole('button', { name: 'Delete', exact: true }).click();
  await copy.waitFor({ state: 'detached' });
});

test('a file that is not SQLite, or a truncated one, is refused with a clear message and the copies are untouched', opts, async () => {
  const page = await openPage();
  const before = await page.locator('.copies .copy').count();
  const notes = join(tmp.dir, 'notes.sqlite');
  writeFileSync(notes, 'These are my notes, not a database.\n'.repeat(20));
  await importFile(page, notes);
  const alert = page.locator('.import-error');
  await page.waitForFunction(() => document.querySelector('.import-error')?.textContent.length > 0);
  assert.match(await alert.innerText(), /Not imported: "notes.sqlite" is not a SQLite database/);
  assert.match(await alert.innerText(), /other copies are unchanged/);
  await screenshot(page, 'pulse_tab_not_sqlite');

  const cut = join(tmp.dir, 'cut.sqlite');
  const bytes = readFileSync(fixture.dbPath);
  writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2) + 100));
  await importFile(page, cut);
  await page.waitForFunction(() => /truncated/.test(document.querySelector('.import-error')?.textContent || ''));
  assert.match(await alert.innerText(), /"cut.sqlite" is truncated/);
  assert.equal(await page.locator('.copies .copy').count(), before);

  // A whole file with a good header but a damaged schema page passes the
  // page's header check; the worker stores it, cannot open it, removes it.
  const damaged = join(tmp.dir, 'damaged.sqlite');
  const bad = Buffer.from(bytes);
  bad.fill(0xff, 100, 4096);
  writeFileSync(damaged, bad);
  await importFile(page, damaged);
  await page.waitForFunction(() => /damaged/.test(document.querySelector('.import-error')?.textContent || ''));
  assert.match(await alert.innerText(), /Not imported: "damaged.sqlite" is damaged: SQLite cannot read its tables/);
  assert.equal(await page.locator('.copies .copy').count(), before);
  await screenshot(page, 'pulse_tab_damaged');
  await page.getByRole('button', { name: `Open ${fixture.copyName}` }).click();
  assert.equal((await alarmTexts(page)).length, SEED_ALARMS.length);
});

test('keyboard only: Tab reaches the main controls in order, Enter and Space act, focus is visible', opts, async () => {
  const page = await openPage();
  await page.locator(`.copies .copy[data-name="${fixture.copyName}"]`).waitFor();
  const seen = [];
  const describe = () => page.evaluate(() => {
    const el = document.activeElement;
    const style = getComputedStyle(el);
    return {
      text: (el.getAttribute('aria-label') || el.innerText || el.value || el.id || el.tagName).trim(),
      tag: el.tagName,
      outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
    };
  });
  let openIndex = -1;
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press('Tab');
    const d = await describe();
    seen.push(d.text);
    if (d.tag === 'BUTTON' || d.tag === 'INPUT' || d.tag === 'A') assert.ok(d.outline, `no visible focus on ${d.text}`);
    if (d.text === `Open ${fixture.copyName}`) { openIndex = i; break; }
  }
  assert.ok(openIndex >= 0, `Open button not reached by Tab: ${seen.join(' | ')}`);
  const order = ['Skip to the cards', 'Local copy', 'Choose db.sqlite…', 'Choose workflow folder…', `Open ${fixture.copyName}`];
  let last = -1;
  for (const label of order) {
    const at = seen.findIndex((s) => s.startsWith(label));
    assert.ok(at > last, `${label} out of order in: ${seen.join(' | ')}`);
    last = at;
  }
  await page.keyboard.press('Enter');
  await page.locator('#goal-status .alarms').waitFor();
  // On to the first Accept button by Tab, then Space opens nothing but acts.
  let reached = false;
  for (let i = 0; i < 60 && !reached; i++) {
    await page.keyboard.press('Tab');
    const d = await describe();
    if (/^Change…/.test(d.text)) reached = true;
  }
  assert.ok(reached, 'Change… not reached by Tab');
  await screenshot(page, 'pulse_tab_keyboard_focus');
  await page.keyboard.press('Space');
  const form = page.locator('.change-form');
  await form.waitFor();
  // The Change form takes the focus.
  await page.waitForFunction(() => !!document.activeElement.closest('.change-form'), null, { timeout: 5000 });
  await screenshot(page, 'pulse_tab_keyboard_change_form');
  // Arrow to the other option, Tab past the note to "Send answer", Enter.
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  assert.equal((await describe()).text, 'Send answer');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement.classList.contains('notice'), null, { timeout: 5000 });
  await openCard(page, 'decision-log');
  const entry = page.locator('#decision-log .log-entry', { hasText: fixture.secondQuestion });
  await entry.waitFor();
  assert.match(await entry.innerText(), /Changed from Pulse's recommendation to: No/);
});

function escapeRe(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

test('offline: after one visit the page, the worker and the WASM module come from the service worker, and the copy opens', opts, async () => {
  const page = await openPage();
  const withSw = server.url + PAGE.replace('&nosw', '');
  await page.goto(withSw);
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
  // A second online visit goes through the service worker, which keeps each asset.
  await page.goto(withSw);
  await page.locator('#overview .overview-row').first().waitFor();
  await page.waitForFunction(() => !!navigator.serviceWorker.controller);
  await context.setOffline(true);
  // Offline, the page's question whether a pulse serve is behind it fails
  // (and is logged); every asset must still come from the service worker.
  const allowed = allowConsoleErrors(context, /ERR_INTERNET_DISCONNECTED \(http:[^)]*\/api\/health\)$/);
  try {
    await page.goto(withSw);
    await page.locator(`.copies .copy[data-name="${fixture.copyName}"]`).waitFor();
    await page.getByRole('button', { name: `Open ${fixture.copyName}` }).click();
    const alarms = await alarmTexts(page);
    assert.equal(alarms.length, SEED_ALARMS.length);
    // The chart, whose module no online visit had loaded.
    await openCard(page, 'readings');
    await page.locator('#readings .chart canvas').first().waitFor();
    await screenshot(page, 'pulse_tab_offline');
  } finally {
    await context.setOffline(false);
    allowed();
  }
  // Leave no service worker behind for the other tests.
  await page.evaluate(async () => {
    for (const r of await navigator.serviceWorker.getRegistrations()) await r.unregister();
  });
});

test('after a browser restart on the same profile the copy and its answers are still there', opts, async () => {
  await context.close();
  context = await launchBrowser(join(tmp.dir, 'profile'));
  const page = await openPage();
  await page.getByRole('button', { name: `Open ${fixture.copyName}` }).click();
  assert.equal((await alarmTexts(page)).length, SEED_ALARMS.length);
  await openCard(page, 'decision-log');
  await page.locator('#decision-log .log-entry', { hasText: fixture.decisionQuestion }).waitFor();
});
