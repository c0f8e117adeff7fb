// The Pulse tab as a new owner meets it, local-copy mode, in real headless
// Chromium on the real WASM core and OPFS (one browser for the file): the
// overview first, one address per workflow and card with back/forward, a
// file chosen before the worker is up, copies named after their workflow,
// non-Pulse and damaged databases refused, the clock named, the agent log
// readable at desktop width and on a 390 px phone, "Needs you" saying what
// each button does, the chart's legend and marks, the messages card and the
// memory card. A console error or page error fails the test it happens in
// (tests/browser/helpers.mjs watches every page).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { makeTempDir, PULSE_BIN } from '../node/helpers.mjs';
import { browserSkip, startStaticServer, launchBrowser, screenshot } from './helpers.mjs';
import { buildPulseTabFixture, FIXTURE_NOW, SEED_ALARMS } from './pulse_tab_fixture.mjs';
import { vendorWeb } from '../../scripts/vendor-web.mjs';

const skip = browserSkip(import.meta.url, { pulse: true });
const opts = { skip, timeout: 120000 };

const LAST_CHECK = '2026-10-06T09:00:00Z';
const MULTILINE = 'reviewed 3 steps\nchanged: growth_funnel records a reading\nleft: publish_review as it is\nnext: watch the 9 Oct run';
let tmp;
let server;
let context;
let fixture;
let alphaDb;

function pulse(args) {
  return execFileSync(PULSE_BIN, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

// What the fixture lacks for these cards: a recorded check, a multi-line
// result, Pulse's messages; and a second workflow with no goal.
async function extendFixture() {
  const common = ['--workspace', fixture.workspace, '--workflow', 'substack'];
  pulse(['check', ...common, '--record', '--now', LAST_CHECK]);
  pulse(['agent-log', 'started', ...common, '--session', 'schedule-goallead--substack-g1', '--agent', 'review-2', '--name', 'Reviewer',
    '--kind', 'reviewer', '--run-id', 'p-1007', '--at', '2026-10-07T08:00:00Z', '--now', '2026-10-07T08:00:00Z']);
  pulse(['agent-log', 'completed', ...common, '--session', 'schedule-goallead--substack-g1', '--agent', 'review-2',
    '--result', MULTILINE, '--duration', '0.007s', '--at', '2026-10-07T08:00:01Z', '--now', '2026-10-07T08:00:01Z']);
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(fixture.dbPath));
  db.run(`INSERT INTO pulse_outbox(kind, title, text, created_at, delivered_at, attempts) VALUES
    ('pulse_summary', 'Substack Pulse: not measured', 'Subscribers were last measured by a run on 17 Sep.', '2026-10-06T09:00:05Z', '2026-10-06T09:00:09Z', 1),
    ('pulse_summary', 'Substack Pulse: still not measured', 'No reading by a run for 20 days.', '2026-10-07T09:00:05Z', '', 2)`);
  writeFileSync(fixture.dbPath, db.export());
  db.close();
  const alpha = join(fixture.workspace, 'Workflow', 'alpha');
  mkdirSync(alpha, { recursive: true });
  writeFileSync(join(alpha, 'workflow.json'), JSON.stringify({ pulse: { enabled: true } }));
  pulse(['check', '--workspace', fixture.workspace, '--workflow', 'alpha', '--now', FIXTURE_NOW]);
  alphaDb = join(alpha, 'db', 'db.sqlite');
}

before(async () => {
  if (skip) return;
  vendorWeb();
  tmp = makeTempDir('pulse-tab-ux-');
  fixture = await buildPulseTabFixture(tmp.dir);
  await extendFixture();
  server = await startStaticServer();
  context = await launchBrowser(join(tmp.dir, 'profile'));
});

after(async () => {
  if (context) await context.close();
  if (server) await server.close();
  if (tmp) tmp.cleanup();
});

async function page(width = 1400, height = 1000) {
  const p = context.pages()[0] || await context.newPage();
  await p.setViewportSize({ width, height });
  // Each test loads its page afresh (a hash change alone keeps the page).
  await p.goto('about:blank');
  return p;
}

const at = (hash) => `${server.url}/?now=${FIXTURE_NOW}&nosw${hash}`;

test('a file chosen before the worker is up waits for it, and the copy is named after its workflow (db.sqlite → substack)', opts, async () => {
  const p = await page();
  await p.goto(at('#/local'), { waitUntil: 'commit' });
  // At once: the hidden input exists before the store does.
  await p.locator('#file-input').setInputFiles(fixture.dbPath);
  await p.locator('.copies .copy.open[data-name="substack"]').waitFor();
  await p.locator('#goal-status .alarms').waitFor();
  assert.equal(await p.locator('.import-error').innerText(), '');
  assert.equal(new URL(p.url()).hash, '#/copy/substack');
  await p.locator('#folder-input').setInputFiles(join(fixture.workspace, 'Workflow', 'alpha'));
  await p.locator('.copies .copy.open[data-name="alpha"]').waitFor();
  assert.equal(new URL(p.url()).hash, '#/copy/alpha');
});

test('the first screen is the overview, worst first; one click opens a workflow; back and forward work', opts, async () => {
  const p = await page();
  await p.goto(at(''));
  const rows = p.locator('#overview .overview-row');
  await rows.nth(1).waitFor();
  assert.deepEqual(await rows.evaluateAll((els) => els.map((e) => [e.dataset.name, e.dataset.goalStatus])),
    [['substack', 'not_measured'], ['alpha', 'no_goal']]);
  const first = await rows.first().innerText();
  assert.match(first, /Not measured/);
  assert.match(first, /412\s+of 1,000/);
  assert.match(first, new RegExp(SEED_ALARMS[0].replace(/[()]/g, '\\$&')));
  assert.match(first, /\+3 more alarms/);
  assert.match(first, /2 decisions/);
  assert.match(first, /Last recorded check\s+6 Oct 09:00 UTC/i);
  await screenshot(p, 'ux_overview');
  await p.getByRole('link', { name: 'substack' }).click();
  await p.locator('#goal-status .alarms').waitFor();
  assert.equal(new URL(p.url()).hash, '#/copy/substack');
  await p.goBack();
  await p.locator('#overview').waitFor();
  await p.goForward();
  await p.locator('#goal-status .alarms').waitFor();
  await p.reload();
  await p.locator('#goal-status .alarms').waitFor();
  assert.match(await p.locator('.open-title h2').innerText(), /substack/);
  // A card's own address scrolls to it.
  await p.goto(at('#/copy/substack/agent-log'));
  await p.locator('#agent-log .agent-group').first().waitFor();
  await p.waitForFunction(() => scrollY > 0 && Math.abs(document.getElementById('agent-log').getBoundingClientRect().top) < innerHeight / 2);
  // The mode bar follows the address: a local copy is always "Local copy".
  assert.equal(await p.locator('.mode-switch button[aria-pressed="true"]').innerText(), 'Local copy');
  assert.equal(await p.locator('#mode-banner').getAttribute('data-mode'), 'local');
});

test('a database with no Pulse tables is refused and never written; a damaged one is refused in one sentence; a looked-at copy is unchanged', opts, async () => {
  const p = await page();
  await p.goto(at('#/local'));
  await p.locator('.copies .copy').nth(1).waitFor();
  const SQL = await initSqlJs();
  const other = new SQL.Database();
  other.run('CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes(text) VALUES (\'groceries\')');
  const plainFile = join(tmp.dir, 'notes.sqlite');
  const plainBytes = Buffer.from(other.export());
  writeFileSync(plainFile, plainBytes);
  other.close();
  await p.locator('#file-input').setInputFiles(plainFile);
  await p.waitForFunction(() => /Pulse/.test(document.querySelector('.import-error')?.textContent || ''));
  assert.match(await p.locator('.import-error').innerText(),
    /Not imported: "notes.sqlite" is a SQLite database but not a Pulse workflow database \(it has one table, none of them Pulse's\); nothing was stored and the file is unchanged\./);
  assert.deepEqual(readFileSync(plainFile), plainBytes);
  assert.equal(await p.locator('.copies .copy').count(), 2);
  await screenshot(p, 'ux_not_pulse');

  // Zeroed b-tree pages past the schema: the header and schema read fine.
  const bytes = Buffer.from(readFileSync(fixture.dbPath));
  const pageSize = bytes.readUInt16BE(16) === 1 ? 65536 : bytes.readUInt16BE(16);
  const pages = bytes.length / pageSize;
  for (let i = 3; i < Math.min(pages, 12); i++) bytes.fill(0, i * pageSize, (i + 1) * pageSize);
  const damaged = join(tmp.dir, 'zeroed.sqlite');
  writeFileSync(damaged, bytes);
  await p.locator('#file-input').setInputFiles(damaged);
  await p.waitForFunction(() => /damaged/.test(document.querySelector('.import-error')?.textContent || ''));
  const text = await p.locator('.import-error').innerText();
  assert.match(text, /^Not imported: "zeroed.sqlite" is damaged(: SQLite cannot read its tables, so nothing was stored| \(SQLite's integrity check failed on it\), so the copy was removed again)\. Your other copies are unchanged\.$/);
  assert.equal(await p.locator('.copies .copy').count(), 2);
  assert.equal(await p.locator('#main .card-error').count(), 0);
  await screenshot(p, 'ux_damaged');

  // A Pulse database is only read until the owner acts: the copy the
  // earlier tests opened and looked at, every card, exports byte for byte
  // as the file it came from.
  const [download] = await Promise.all([p.waitForEvent('download'),
    p.getByRole('button', { name: 'Export substack' }).click()]);
  const exported = join(tmp.dir, 'substack-exported.sqlite');
  await download.saveAs(exported);
  assert.ok(readFileSync(exported).equals(readFileSync(fixture.dbPath)), 'the looked-at copy is unchanged');
});

test('the clock a result is on is named, and "as of the last recorded check" moves it there', opts, async () => {
  const p = await page();
  await p.goto(at('#/copy/substack'));
  const line = p.locator('#clock-line');
  await line.locator('#as-of-last-check').waitFor();
  // One way of writing times (the RFC 3339 form is the <time> element's datetime).
  assert.match(await line.innerText(), /At a set time, 7 Oct 2026 12:00 UTC \(not this browser's clock\)/);
  assert.equal(await line.locator('time').first().getAttribute('datetime'), '2026-10-07T12:00:00Z');
  assert.match(await line.innerText(), /Last recorded check: 6 Oct 09:00 UTC \(not measured\)/);
  await line.locator('#as-of-last-check').click();
  await p.waitForFunction(() => /now=2026-10-06T09/.test(location.search));
  await p.locator('#goal-status dd', { hasText: '6 Oct 09:00 UTC' }).waitFor();
  assert.equal(new URL(p.url()).hash, '#/copy/substack');
  await p.locator('#use-clock').click();
  await p.waitForFunction(() => !/now=/.test(location.search));
  assert.match(await line.innerText(), /On this browser's clock/);
});

test('the agent log reads well: headings in words, lines kept, durations in one style, counts and empty states', opts, async () => {
  const p = await page();
  await p.goto(at('#/copy/substack/agent-log'));
  const card = p.locator('#agent-log');
  await card.locator('.agent-group').first().waitFor();
  const heads = await card.locator('.agent-group h3').allInnerTexts();
  assert.match(heads[0], /^Pulse's goal lead, generation 1 schedule-goallead--substack-g1 · 4 agents/);
  assert.match(heads[1], /^A Builder chat builder-7f3a · 1 agent$/);
  const row = (name) => card.locator('tr.agent-row').filter({ has: p.locator('strong', { hasText: new RegExp(`^${name}$`) }) });
  assert.match(await row('Gate').locator('td[data-label="Duration"]').innerText(), /^41 s$/);
  const review = row('Reviewer');
  assert.deepEqual(await review.locator('td[data-label="Duration"]').allInnerTexts(), ['3 min 10 s', 'under 1 s']);
  const long = review.nth(1).locator('td.result');
  await long.locator('summary').click();
  assert.equal((await long.locator('details > .pre-text').innerText()).trim(), MULTILINE);
  assert.match(await card.locator('.card-sub').innerText(), /^5 rows · 1 running · 1 stuck$/);
  await card.getByLabel('Status', { exact: true }).selectOption('cancelled');
  await card.locator('.empty-state').waitFor();
  assert.match(await card.locator('.empty-state').innerText(), /No agent rows in the last 7 days match these filters/);
  assert.match(await card.locator('.card-sub').innerText(), /^0 rows$/);
  await screenshot(p, 'ux_agent_log_desktop');
});

test('on a 390 px phone: the workflow first, cards stacked, nothing wider than the screen, the agent log reflowed', opts, async () => {
  const p = await page(390, 844);
  await p.goto(at('#/copy/substack/agent-log'));
  await p.locator('#agent-log .agent-group').first().waitFor();
  const m = await p.evaluate(() => {
    const rows = [...document.querySelectorAll('#agent-log tr.agent-row')];
    const results = [...document.querySelectorAll('#agent-log td.result')];
    return {
      scroll: document.documentElement.scrollWidth,
      mainTop: document.querySelector('main').getBoundingClientRect().top,
      sideTop: document.querySelector('aside').getBoundingClientRect().top,
      tallest: Math.max(...rows.map((r) => r.getBoundingClientRect().height)),
      // An id never wraps mid-token: each is one line (cut with … and whole in its title).
      tallestId: Math.max(...[...document.querySelectorAll('#agent-log code.id')].map((c) => c.getBoundingClientRect().height)),
      narrowest: Math.min(...results.map((r) => r.getBoundingClientRect().width)),
      wide: [...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > 391 && !e.closest('.table-scroll'))
        .map((e) => e.className || e.tagName).slice(0, 5),
    };
  });
  assert.ok(m.scroll <= 390, `page is ${m.scroll} px wide: ${m.wide.join(', ')}`);
  assert.ok(m.mainTop < m.sideTop, 'the workflow comes before the side panel');
  assert.ok(m.narrowest > 150, `a result cell is ${m.narrowest} px wide`);
  assert.ok(m.tallest < 500, `a row is ${m.tallest} px tall`);
  assert.ok(m.tallestId < 24, `an id is ${m.tallestId} px tall (wrapped)`);
  await screenshot(p, 'ux_390_agent_log');
  await p.goto(at('#/copy/substack/readings'));
  await p.locator('#readings .chart canvas').first().waitFor();
  assert.ok(await p.evaluate(() => document.documentElement.scrollWidth) <= 390);
  await screenshot(p, 'ux_390_workflow');
  await p.goto(at(''));
  await p.locator('#overview .overview-row').nth(1).waitFor();
  assert.ok(await p.evaluate(() => document.documentElement.scrollWidth) <= 390);
  await screenshot(p, 'ux_390_overview');
});

test('"Needs you" says what Accept does, marks Pulse\'s pick, offers Dismiss; the log records a result', opts, async () => {
  const p = await page();
  await p.goto(at('#/copy/substack/needs-you'));
  const item = p.locator('#needs-you .decision', { hasText: fixture.decisionQuestion });
  await item.waitFor();
  const text = await item.innerText();
  assert.match(text, /Accept answers “Resume the schedules”, carried out within the autonomy levels; Dismiss closes it unanswered, with an undo/);
  assert.match(text, /Waiting 3 days/);
  assert.doesNotMatch(await p.locator('#needs-you').innerText(), /waiting 0 s|raised by pulse/);
  assert.equal(await item.locator('.option-rec').innerText(), 'Resume the schedules');
  await item.getByRole('button', { name: 'Change…' }).click();
  assert.match(await item.locator('.change-form label', { hasText: 'Resume the schedules' }).innerText(), /Pulse recommends/);
  await item.getByRole('button', { name: 'Cancel' }).click();
  await screenshot(p, 'ux_needs_you');
  const second = p.locator('#needs-you .decision', { hasText: fixture.secondQuestion });
  await second.getByRole('button', { name: 'Dismiss' }).click();
  // Sent once its Undo has passed; the decision log (folded) records it.
  await second.waitFor({ state: 'detached', timeout: 20000 });
  await p.locator('#decision-log .fold-toggle').click();
  const dismissed = p.locator('#decision-log .log-entry', { hasText: fixture.secondQuestion });
  await dismissed.waitFor();
  assert.match(await dismissed.innerText(), /Dismissed/);
  await item.getByRole('button', { name: /^Accept/ }).click();
  const entry = p.locator('#decision-log .log-entry', { hasText: fixture.decisionQuestion });
  await entry.waitFor();
  await entry.getByRole('button', { name: 'Record result' }).click();
  await entry.getByLabel('What came of it').fill('Schedules resumed; growth_funnel ran on 8 Oct.');
  await entry.getByRole('button', { name: 'Save result' }).click();
  await entry.locator('.outcome', { hasText: 'Result: Schedules resumed' }).waitFor();
  assert.match(await p.locator('#needs-you').innerText(), /Nothing waits for you/);
  await screenshot(p, 'ux_decision_log');
});

test('the chart: axis titles, a legend of its real marks, the target in view, a now line, the unmeasured gap', opts, async () => {
  const p = await page();
  await p.goto(at('#/copy/substack/readings'));
  await p.locator('#readings .chart[data-y-max]').waitFor();
  const legend = await p.locator('#readings .chart-legend').innerText();
  for (const label of ['subscribers, read by a workflow run', 'read outside a run (not counted)',
    'where the status rule expects it', 'target 1,000', 'now', 'no reading by a run for 20 days']) assert.ok(legend.includes(label), `${label} in ${legend}`);
  const range = await p.locator('#readings .chart').evaluate((el) => ({ max: Number(el.dataset.yMax), target: Number(el.dataset.target) }));
  assert.ok(range.max >= range.target, `y axis ends at ${range.max}, target ${range.target}`);
  assert.equal(await p.locator('#readings .u-legend').count(), 0);
  assert.equal(await p.locator('#readings .chart').getAttribute('data-axes'), 'Date (UTC)|subscribers');
  await p.locator('#readings').screenshot({ path: join(tmp.dir, 'chart.png') });
  await screenshot(p, 'ux_chart');
});

test('messages: what Pulse sent and whether it was delivered; memory: no repeated heading, empty sections explained, save confirmed', opts, async () => {
  const p = await page();
  await p.goto(at('#/copy/substack/messages'));
  const card = p.locator('#messages');
  await card.locator('.message').first().waitFor();
  const items = await card.locator('.message').allInnerTexts();
  assert.match(items[0], /Substack Pulse: still not measured[\s\S]*Not delivered when this copy was made/);
  assert.match(items[1], /Substack Pulse: not measured[\s\S]*Delivered 6 Oct 09:00 UTC/);
  assert.match(await card.locator('.card-sub').innerText(), /5 messages · 4 not delivered/);
  // What the owner can do from here, and where the rest is done.
  assert.match(await card.locator('.owner-actions').innerText(),
    /^Check now runs on the server \(pulse serve\), not on a copy\. The schedules are paused: Pulse's API cannot resume them/);
  const mem = p.locator('#memory');
  await mem.locator('.fold-toggle').click();
  await mem.getByRole('button', { name: 'Edit' }).waitFor();
  assert.equal(await mem.locator('h3', { hasText: /^Goal memory$/ }).count(), 0);
  assert.equal(await mem.locator('.memory-text > p', { hasText: 'What Pulse and the owner have learned' }).count(), 0);
  // An empty section says what goes in it.
  assert.match(await mem.locator('.empty-section').first().innerText(), /^Nothing here yet: .+ (are kept|is kept|goes) here/);
  await mem.getByRole('button', { name: 'Edit' }).click();
  const area = mem.locator('textarea');
  await area.fill(`${(await area.inputValue()).trimEnd()}\n\n## Owner notes\n- counted on Mondays\n`);
  await mem.getByRole('button', { name: 'Save' }).click();
  await mem.locator('.saved-note').waitFor({ timeout: 10000 }).catch(async (e) => { throw new Error(`${e.message}\n${await mem.innerText()}`); });
  await screenshot(p, 'ux_messages_memory');
});

// The Web Lock that says which tab's worker holds the OPFS pool: who holds
// it, and how many workers wait for it.
async function ownerLock(p) {
  return p.evaluate(async () => {
    const q = await navigator.locks.query();
    const mine = (list) => list.filter((l) => l.name === 'pulse-opfs-owner');
    return { held: mine(q.held).map((l) => l.clientId), waiting: mine(q.pending).length };
  });
}

test('several tabs of one browser all work: one worker owns the pool, the others go through it, and the owner moves when its tab closes', opts, async () => {
  const first = await page();
  await first.goto(at('#/local'));
  await first.locator('#overview .overview-row').nth(1).waitFor();
  const second = await context.newPage();
  await second.setViewportSize({ width: 1400, height: 1000 });
  await second.goto(at('#/copy/substack/memory'));
  await second.locator('#goal-status .alarms').waitFor();
  assert.equal((await second.locator('#goal-status .alarm').allInnerTexts()).length, SEED_ALARMS.length);
  assert.equal(await second.locator('.local-panel .card-error').count(), 0);
  // One owner (the first tab's worker), the second tab's worker in line.
  const before = await ownerLock(second);
  assert.equal(before.held.length, 1);
  assert.equal(before.waiting, 1);
  // A write and an import through the second tab reach the one pool: the
  // first tab sees both.
  const mem = second.locator('#memory');
  await mem.getByRole('button', { name: 'Edit' }).click();
  const area = mem.locator('textarea');
  await area.fill(`${(await area.inputValue()).trimEnd()}\n- written from the second tab\n`);
  await mem.getByRole('button', { name: 'Save' }).click();
  await mem.locator('.saved-note').waitFor();
  await second.locator('#file-input').setInputFiles(alphaDb);
  await second.locator('.copies .copy.open[data-name="alpha-2"]').waitFor();
  await screenshot(second, 'ux_second_tab');
  await first.goto(at('#/copy/substack/memory'));
  await first.locator('#memory', { hasText: 'written from the second tab' }).waitFor();
  await first.locator('.copies .copy[data-name="alpha-2"]').waitFor();

  // The owner's tab closes: the second tab's worker takes the lock and
  // opens the pool; nothing waits any more.
  await first.close();
  // (Until the closed tab's worker is gone its lock can still be listed as
  // held: poll for one holder that is not it, and nothing waiting.)
  let after;
  for (const started = Date.now(); Date.now() - started < 30000; await new Promise((r) => setTimeout(r, 200))) {
    after = await ownerLock(second);
    if (after.held.length === 1 && after.held[0] !== before.held[0] && after.waiting === 0) break;
  }
  assert.notEqual(after.held[0], before.held[0]);
  // The same page (no reload): its worker now answers from its own pool.
  await second.goto(at('#/local'));
  await second.locator('#overview .overview-row').nth(2).waitFor();
  await second.getByRole('link', { name: 'alpha', exact: true }).click();
  await second.locator('#goal-status .status-badge', { hasText: 'No goal' }).waitFor();
  const copy = second.locator('.copies .copy[data-name="alpha-2"]');
  await copy.getByRole('button', { name: 'Delete alpha-2' }).click();
  await copy.getByRole('button', { name: 'Delete', exact: true }).click();
  await copy.waitFor({ state: 'detached' });
  // A tab opened now goes through the new owner.
  const third = await context.newPage();
  await third.goto(at('#/copy/substack/memory'));
  await third.locator('#memory', { hasText: 'written from the second tab' }).waitFor();
  assert.equal(await third.locator('.copies .copy[data-name="alpha-2"]').count(), 0);
  assert.equal((await ownerLock(third)).waiting, 1);
  await third.close();
});
