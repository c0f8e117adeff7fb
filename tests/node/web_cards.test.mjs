// The Pulse tab's cards and formatting, rendered in Node from the agreed JSON
// shapes (the `pulse check --json` example document, the API table's method
// results). The browser suite (tests/browser/pulse_tab.test.mjs) renders the
// same components from documents the real WASM core computes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { render } from 'preact-render-to-string';
import { html } from 'htm/preact';
import initSqlJs from 'sql.js';
import {
  GoalStatusCard, NeedsYouCard, DecisionLogCard, RunsByRouteCard, AgentLogCard, ReadingsCard, RequestsCard,
  chartSeries, groupAgentRows, answerText, renderMemory,
} from '../../web/cards/index.mjs';
import {
  formatTime, formatSpan, parseNowParam, copyNameFor, statusWord,
} from '../../web/format.mjs';
import { sqliteHeaderProblem } from '../../web/sqlite-header.mjs';

// The page names a file by its name, in quotes.
const checkSqliteHeader = (head, size, name) => sqliteHeaderProblem(head, size, `"${name}"`);

const NOW = Date.parse('2026-10-07T12:00:00Z');

// The example check document, verbatim.
const CHECK = {
  workflow: 'substack',
  checked_at: '2026-10-07T12:00:00Z',
  status: 'not_measured',
  metric: { name: 'subscribers', value: 412, target: 1000, last_measured_at: '2026-10-07T08:10:00Z', last_measured_by_run_at: '2026-09-17T09:30:00Z' },
  alarms: [
    { kind: 'not_measured', days: 20, message: 'not measured by a workflow run for 20 days (last reading 17 Sep)' },
    { kind: 'goal_work_without_reading', runs: 6, message: 'growth_funnel ran 6 times since 17 Sep without a reading' },
    { kind: 'goal_work_not_completed', days: 11, runs_since: { publish_review: 6, research: 2, write_article: 1 }, failed_goal_runs: 1,
      message: 'growth work has not completed for 11 days (the 10 runs since: publish_review ×6, research ×2, write_article ×1, one failed growth run)' },
    { kind: 'no_run', days: 7, schedules_paused: true, message: 'no run for 7 days with schedules paused' },
  ],
  outside_run_readings: [{ at: '2026-10-07T08:10:00Z', source: 'builder_chat' }],
  quiet: false,
};

const text = (vnode) => render(vnode).replace(/<[^>]+>/g, ' ').replace(/&#x27;|&#39;/g, "'").replace(/\s+/g, ' ');

test('the goal status card shows the status, key number, last measured and every alarm sentence', () => {
  const out = text(html`<${GoalStatusCard} check=${CHECK} nowMs=${NOW} />`);
  assert.match(out, /Not measured/);
  assert.match(out, /412 subscribers of 1,000 target/);
  assert.match(out, /Last measured 7 Oct 08:10 \(3 h 50 min ago\)/);
  assert.match(out, /Last measured by a run 17 Sep 09:30 \(20 days ago\)/);
  for (const a of CHECK.alarms) assert.ok(out.includes(a.message), a.message);
  assert.match(out, /outside a run .*7 Oct 08:10 \(builder chat\)/);
});

test('an on-track check says so and shows no alarm list', () => {
  const out = text(html`<${GoalStatusCard} check=${{ ...CHECK, status: 'on_track', alarms: [], outside_run_readings: [] }} nowMs=${NOW} />`);
  assert.match(out, /On track/);
  assert.match(out, /No alarms\./);
  assert.equal(statusWord('at_risk'), 'At risk');
  assert.equal(statusWord('off_track'), 'Off track');
});

test('the chart series separate readings by a run from readings outside a run and draw the target line', () => {
  const doc = {
    metric: 'subscribers', target: 1000, baseline: 200, baseline_at: '2026-08-01T00:00:00Z', deadline: '2026-12-31T00:00:00Z',
    direction: 'increase',
    readings: [
      { at: '2026-09-17T09:30:00Z', value: 380, source: 'workflow_run', run_id: 'r-1', by_run: true },
      { at: '2026-08-20T09:30:00Z', value: 300, source: 'workflow_run', run_id: 'r-0', by_run: true },
      { at: '2026-10-07T08:10:00Z', value: 412, source: 'builder_chat', by_run: false },
    ],
  };
  const s = chartSeries(doc, NOW);
  const at = (iso) => s.xs.indexOf(Date.parse(iso) / 1000);
  assert.deepEqual(s.readings.map((r) => r.v), [300, 380, 412]);
  assert.equal(s.byRun[at('2026-09-17T09:30:00Z')], 380);
  assert.equal(s.outside[at('2026-10-07T08:10:00Z')], 412);
  assert.equal(s.byRun[at('2026-10-07T08:10:00Z')], null);
  // The line from (1 Aug, 200) to (31 Dec, 1000), drawn from the baseline to now.
  assert.equal(s.line[at('2026-08-01T00:00:00Z')], 200);
  assert.equal(Math.round(s.expectedNow * 100) / 100, 555.26);
  assert.ok(s.xs[s.xs.length - 1] > NOW / 1000, 'a little room after now');
  assert.ok(s.line[s.line.length - 1] > 555 && s.line[s.line.length - 1] < 600);
  assert.ok(s.xs.every((x, i) => i === 0 || x > s.xs[i - 1]), 'x is strictly increasing');
  const out = text(html`<${ReadingsCard} doc=${doc} nowMs=${NOW} />`);
  assert.match(out, /target 1,000 by 31 Dec 2026 · baseline 200 on 1 Aug 2026/);
  assert.match(out, /no — outside a run/);
});

test('runs by route mark the goal route and failures', () => {
  const out = render(html`<${RunsByRouteCard} doc=${{ routes: [
    { route: 'publish_review', runs: 6, completed: 6, failed: 0, primary: false },
    { route: 'growth_funnel', runs: 7, completed: 6, failed: 1, primary: true },
  ] }} />`);
  assert.match(out, /growth_funnel <span class="tag goal-tag">goal route/);
  assert.match(out, /class="num failed"[^>]*>1</);
  assert.match(out, /data-label="Route"/, 'a phone shows each route as label: value lines, not squeezed columns');
});

const DECISIONS = {
  decisions: [
    { id: 'd-2', question: 'Resume the growth_funnel schedule?', options: ['resume', 'keep paused'], blocks: 'growth_funnel runs',
      raised_by: 'goal_check', status: 'pending', created_at: '2026-10-04T12:00:00Z',
      recommendation: { option: 'resume', why: 'Goal work has not completed for 11 days.', evidence: 'goal check 7 Oct', confidence: 'high',
        safe_default_by: '2026-10-09T12:00:00Z' },
      answer: null, outcome: null },
    { id: 'd-1', question: 'Record subscribers in the growth step?', options: [], blocks: '', raised_by: 'goal_check',
      status: 'answered', created_at: '2026-09-20T12:00:00Z',
      recommendation: { text: 'Yes, add a reading at the end of growth_funnel', why: 'unmeasured', confidence: 'medium' },
      answer: { accept: true, answered_at: '2026-09-21T10:00:00Z', note: 'ok' }, outcome: null },
  ],
  outcomes_due: [{ id: 'd-1' }],
};

test('needs you lists pending decisions with the recommendation, the wait and what they block', () => {
  const out = text(html`<${NeedsYouCard} doc=${DECISIONS} nowMs=${NOW} onAnswer=${() => {}} />`);
  assert.match(out, /Resume the growth_funnel schedule\?/);
  assert.match(out, /Waiting 3 days/);
  assert.match(out, /Blocks: growth_funnel runs/);
  assert.match(out, /Pulse recommends resume high confidence/);
  assert.match(out, /Safe default applies 9 Oct 12:00 UTC/);
  assert.match(out, /Accept/);
  assert.match(out, /Change…/);
  assert.doesNotMatch(out, /Record subscribers/);
});

test('the decision log shows answers and a due result', () => {
  const out = text(html`<${DecisionLogCard} doc=${DECISIONS} nowMs=${NOW} />`);
  assert.match(out, /Record subscribers in the growth step\?/);
  assert.match(out, /Accepted Pulse's recommendation: Yes, add a reading at the end of growth_funnel/);
  assert.match(out, /Result due/);
  assert.doesNotMatch(out, /Resume the growth_funnel/);
  assert.equal(answerText({ option: 'keep paused' }), 'Answered: keep paused');
  assert.equal(answerText({ dismiss: true }), 'Dismissed');
  // The decisions module's shape: kind and chosen.
  assert.equal(answerText({ kind: 'accepted', chosen: 'Resume' }), "Accepted Pulse's recommendation: Resume");
  assert.equal(answerText({ kind: 'changed', chosen: 'Keep paused' }), "Changed from Pulse's recommendation to: Keep paused");
  assert.equal(answerText({ kind: 'applied_by_pulse', chosen: 'Resume' }), 'Applied by Pulse (safe default): Resume');
});

test('the agent log groups by session oldest first and marks running and stuck rows', () => {
  const rows = [
    { session_id: 's-2', agent_id: 'a3', name: 'Fixer', kind: 'fixer', status: 'running', stuck: true, started_at: '2026-10-07T06:00:00Z', updated_at: '2026-10-07T06:00:00Z', pulse_run_id: 'p-2' },
    { session_id: 's-1', agent_id: 'a1', name: 'Gate', kind: 'gate', status: 'completed', result: 'ok', started_at: '2026-10-06T09:00:00Z', completed_at: '2026-10-06T09:02:00Z', updated_at: '2026-10-06T09:02:00Z', pulse_run_id: 'p-1' },
    { session_id: 's-1', agent_id: 'a2', name: 'Reviewer', kind: 'reviewer', status: 'running', stuck: false, started_at: '2026-10-07T11:50:00Z', updated_at: '2026-10-07T11:50:00Z', pulse_run_id: 'p-1' },
  ];
  const groups = groupAgentRows(rows, 'session');
  assert.deepEqual(groups.map(([k]) => k), ['s-1', 's-2']);
  assert.deepEqual(groups[0][1].map((r) => r.agent_id), ['a1', 'a2']);
  const out = text(html`<${AgentLogCard} doc=${{ rows, stuck_after_minutes: 120 }} nowMs=${NOW} filters=${{}} onFilter=${() => {}} />`);
  assert.match(out, /3 rows · 1 running · 1 stuck/);
  assert.match(out, /stuck \(running 6 h\)/);
  const stuckOnly = text(html`<${AgentLogCard} doc=${{ rows }} nowMs=${NOW} filters=${{ stuckOnly: true }} onFilter=${() => {}} />`);
  assert.match(stuckOnly, /Fixer/);
  assert.doesNotMatch(stuckOnly, /Gate/);
  // A page of a longer log (the core gave next_cursor): the card says so and
  // offers the page before; the last page offers nothing more.
  const paged = text(html`<${AgentLogCard} doc=${{ rows, next_cursor: '2026-10-06T09:00:00Z/1' }} nowMs=${NOW}
    filters=${{}} onFilter=${() => {}} onOlder=${() => {}} />`);
  assert.match(paged, /newest 3 rows · 1 running/);
  assert.match(paged, /Showing the newest 3 rows; older rows match too\.\s*Show older/);
  const last = text(html`<${AgentLogCard} doc=${{ rows, next_cursor: null }} nowMs=${NOW} filters=${{}} onFilter=${() => {}} />`);
  assert.doesNotMatch(last, /Show older/);
});

test('a session group is named by its id: a generation of the conversation, a session opened for an agent', async () => {
  const { sessionTitle } = await import('../../web/cards/agent-log.mjs');
  assert.equal(sessionTitle('schedule-goallead--dc77e3afb5bbf2d7-g3'), 'Pulse\'s goal lead, generation 3');
  // pulse session open's ids are not generations (docs/conversation.md#session-ids).
  assert.equal(sessionTitle('schedule-goallead--dc77e3afb5bbf2d7-o5'), 'A Pulse session opened for an agent');
  assert.equal(sessionTitle('schedule-builder--dc77e3afb5bbf2d7-q1'), 'A scheduled session');
});

test('goal memory renders headings and bullets as text, never as HTML', () => {
  const out = render(html`<div>${renderMemory('# Goal\n- one <b>two</b>\n\nplain')}</div>`);
  assert.match(out, /<h3>Goal<\/h3>/);
  assert.match(out, /<li>one &lt;b>two&lt;\/b><\/li>/);
  assert.match(out, /<p>plain<\/p>/);
});

test('formatting: times in UTC, spans, the ?now= parameter and copy names', () => {
  assert.equal(formatTime('2026-09-17T09:30:00Z'), '17 Sep 09:30');
  assert.equal(formatTime('2025-09-17T09:30:00Z', NOW), '17 Sep 2025 09:30');
  assert.equal(formatSpan(90 * 60 * 1000), '1 h 30 min');
  assert.equal(formatSpan(3 * 86400 * 1000), '3 days');
  assert.equal(parseNowParam('2026-10-07T12:00:00Z').seconds, NOW / 1000);
  assert.match(parseNowParam('yesterday').error, /not a time/);
  assert.equal(copyNameFor('db.sqlite', []), 'db');
  assert.equal(copyNameFor('substack', ['substack', 'substack-2']), 'substack-3');
  assert.equal(copyNameFor('../../etc', []), 'etc');
  assert.equal(copyNameFor('substack.db.sqlite', []), 'substack');
});

test('the header check accepts a real SQLite file and names a non-SQLite or truncated one', async () => {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  db.run('CREATE TABLE t(x); INSERT INTO t VALUES (randomblob(20000));');
  const bytes = db.export();
  db.close();
  assert.equal(checkSqliteHeader(bytes.subarray(0, 100), bytes.length, 'db.sqlite'), '');
  const cut = bytes.length - 4096;
  assert.match(checkSqliteHeader(bytes.subarray(0, 100), cut, 'db.sqlite'), /"db.sqlite" is truncated/);
  assert.match(checkSqliteHeader(bytes.subarray(0, 100), bytes.length - 100, 'db.sqlite'), /truncated/);
  const notDb = new TextEncoder().encode('hello, this is a text file and certainly not a database '.repeat(4));
  assert.match(checkSqliteHeader(notDb.subarray(0, 100), notDb.length, 'notes.txt'), /"notes.txt" is not a SQLite database/);
  assert.match(checkSqliteHeader(new Uint8Array(0), 0, 'empty.sqlite'), /empty/);
});

test('the shell\'s address, worst-first order, plural forms, durations and the chart\'s range', async () => {
  const { parseRoute, routeHash, routeFromQuery, worstFirst } = await import('../../web/data/route.mjs');
  const { plural } = await import('../../web/cards/card.mjs');
  const { formatDuration, parseDurationText } = await import('../../web/format.mjs');
  const { chartSeries } = await import('../../web/cards/goal.mjs');
  assert.deepEqual(parseRoute('#/w/substack/agent-log'), { mode: 'server', open: { kind: 'server', name: 'substack' }, view: 'agent-log', params: {}, query: '' });
  assert.deepEqual(parseRoute('#/copy/substack-2'), { mode: 'local', open: { kind: 'local', name: 'substack-2' }, view: '', params: {}, query: '' });
  // A card's filters are in the address, and come back out of it.
  const filtered = parseRoute('#/w/substack/agent-log?status=running&stuck=30&session=schedule-goallead--x-g1');
  assert.deepEqual(filtered.params, { status: 'running', stuck: '30', session: 'schedule-goallead--x-g1' });
  assert.equal(routeHash({ open: filtered.open, view: 'agent-log', params: { status: 'running', run: '', stuck: '30' } }),
    '#/w/substack/agent-log?status=running&stuck=30');
  assert.equal(routeHash({ open: filtered.open, params: { status: 'running' } }), '#/w/substack', 'filters belong to a card');
  const { routeTitle, needsAttention } = await import('../../web/data/route.mjs');
  assert.equal(routeTitle(filtered), 'Background agent log · substack · Pulse');
  assert.equal(routeTitle(parseRoute('#/w/substack')), 'substack · Pulse');
  assert.equal(routeTitle(parseRoute('#/')), 'Workflows · Pulse');
  // Inspect's own state follows a "?" (a "?" inside it stays escaped).
  assert.deepEqual(parseRoute('#/copy/substack/inspect?t=log&q=SELECT%201%3F'),
    { mode: 'local', open: { kind: 'local', name: 'substack' }, view: 'inspect', params: { t: 'log', q: 'SELECT 1?' }, query: 't=log&q=SELECT%201%3F' });
  assert.equal(routeHash({ open: { kind: 'local', name: 'substack' }, view: 'inspect', query: 't=log' }), '#/copy/substack/inspect?t=log');
  assert.deepEqual(parseRoute('#/local'), { mode: 'local', open: null, view: '' });
  assert.deepEqual(parseRoute(''), { mode: null, open: null, view: '' });
  assert.equal(routeHash({ open: { kind: 'local', name: 'a b' }, view: 'needs-you' }), '#/copy/a%20b/needs-you');
  assert.equal(routeFromQuery(new URLSearchParams('mode=local')), '#/local');
  assert.equal(routeFromQuery(new URLSearchParams('copy=substack&mode=local')), '#/copy/substack');
  assert.deepEqual(worstFirst([{ name: 'a', status: 'on_track' }, { name: 'b', status: 'no_goal' }, { name: 'c', status: 'off_track' },
    { name: 'd', status: 'not_measured' }, { name: 'e', status: 'error' }]).map((r) => r.name), ['e', 'c', 'd', 'a', 'b']);
  // With the core's attention rank: an on-track workflow with an expired
  // login (critical) comes before one merely at risk, after not measured.
  const ranked = [{ name: 'digest', status: 'on_track', rank: 3 }, { name: 'inbox', status: 'on_track', rank: 1 },
    { name: 'substack', status: 'not_measured', rank: 1 }, { name: 'news', status: 'at_risk', rank: 2 }];
  assert.deepEqual(worstFirst(ranked).map((r) => r.name), ['substack', 'inbox', 'news', 'digest']);
  assert.deepEqual(ranked.filter(needsAttention).map((r) => r.name), ['inbox', 'substack', 'news']);
  assert.equal(plural(1, 'row'), '1 row');
  assert.equal(plural(0, 'row'), '0 rows');
  assert.equal(plural(2, 'copy', 'copies'), '2 copies');
  assert.equal(formatDuration(parseDurationText('0.007s')), 'under 1 s');
  assert.equal(formatDuration(parseDurationText('3m10s')), '3 min 10 s');
  assert.equal(formatDuration(parseDurationText('41s')), '41 s');
  assert.equal(formatDuration(3 * 3600e3 + 50 * 60e3), '3 h 50 min');
  const s = chartSeries({ readings: [{ at: '2026-09-17T09:30:00Z', value: 412, by_run: true }], target: 1000, baseline: 200,
    baseline_at: '2026-08-01T00:00:00Z', deadline: '2026-12-31T00:00:00Z' }, Date.parse('2026-10-07T12:00:00Z'));
  assert.ok(s.yMax >= 1000, 'the target is in the y range');
  assert.equal(s.lastByRun, Date.parse('2026-09-17T09:30:00Z') / 1000);
  assert.equal(s.now, Date.parse('2026-10-07T12:00:00Z') / 1000);
});

test('Pulse\'s requests: QA checks and earlier passes with their state, and a sentence when there are none', () => {
  const doc = { requests: [
    { id: 3, kind: 'fast', what: 'the owner resumed the schedules', why: '', session: 's-1', status: 'taken', created_at: '2026-10-07T09:00:00Z', taken_at: '2026-10-07T10:00:00Z' },
    { id: 2, kind: 'builder_ask', what: 'Why was growth_funnel paused?', why: '', session: 's-1', status: 'no_builder_chat', created_at: '2026-10-07T08:30:00Z' },
    { id: 1, kind: 'qa', what: 'check growth_funnel records subscribers', why: 'no reading for 20 days', session: 's-1', status: 'pending', created_at: '2026-10-07T08:00:00Z' },
  ] };
  const out = text(html`<${RequestsCard} doc=${doc} nowMs=${NOW} />`);
  assert.match(out, /1 request waiting/);
  assert.match(out, /check growth_funnel records subscribers waiting/);
  assert.match(out, /why: no reading for 20 days/);
  assert.match(out, /the owner resumed the schedules taken by a pass/);
  assert.doesNotMatch(out, /growth_funnel paused/, 'asks to the Builder are not this card\'s');
  const empty = text(html`<${RequestsCard} doc=${{ requests: [] }} nowMs=${NOW} />`);
  assert.match(empty, /Pulse has not asked for a QA check\./);
  assert.match(empty, /Pulse has not asked for an earlier full pass\./);
});

const INBOX_ATTENTION = [
  { kind: 'needs_reauth', severity: 'critical', key: 'needs_reauth', link: '#/w/inbox/run-health', since: '2026-10-05T10:25:00Z',
    text: 'Needs re-auth: re-connect what run r-0011 uses (invalid_grant in its error: "invalid_grant").', snoozed: false },
  { kind: 'error_rate_spike', severity: 'warning', key: 'error_rate_spike', link: '#/w/inbox/run-health',
    text: '4 of 11 runs failed since 30 Sep (36%, against 0% on the median day of the last 14).', snoozed: false },
  { kind: 'cost_spike', severity: 'warning', key: 'cost_spike', link: '#/w/inbox/goal-facts', snoozed: true, snooze: 'until_it_changes',
    text: 'Run r-0010 cost $3.20, 4.0× the 14-day median run ($0.80), on route reply.' },
  { kind: 'goal_alarm', severity: 'critical', key: 'goal_alarm:no_run', link: '#/w/inbox/goal-status', text: 'No run for 7 days.', snoozed: false },
];

test('what needs you: each attention item with its cause and snooze, a snoozed one marked, goal alarms left to the goal card', async () => {
  const check = { ...CHECK, attention: INBOX_ATTENTION, facts: { login_hints: [
    { run_id: 'r-0011', at: '2026-10-05T10:25:00Z', where: 'error', pattern: 'invalid_grant', matched: 'invalid_grant',
      line: 'gmail: token refresh failed: invalid_grant' }] } };
  const snooze = { onSnooze: () => true, onUnsnooze: () => true, busyKey: '' };
  const out = text(html`<${NeedsYouCard} doc=${DECISIONS} nowMs=${NOW} onAnswer=${() => {}} check=${check}
    linkFor=${(c) => `#/copy/inbox/${c}`} snooze=${snooze} />`);
  assert.match(out, /What needs you 2 items · 1 decision waiting/);
  assert.match(out, /critical: Needs re-auth: re-connect what run r-0011 uses/);
  assert.match(out, /Since 5 Oct 10:25 UTC See Run health/);
  assert.match(out, /Re-connect what these runs use, then run them again: run r-0011 \(5 Oct 10:25 UTC\) ?: invalid_grant in its error gmail: token refresh failed: invalid_grant/);
  assert.match(out, /Run r-0010 cost \$3\.20.*Snoozed until it changes.*Unsnooze/);
  assert.doesNotMatch(out, /No run for 7 days/, 'a goal alarm is the goal card\'s');
  assert.match(out, /Decisions waiting Resume the growth_funnel schedule\?/);
  const links = render(html`<${NeedsYouCard} doc=${DECISIONS} nowMs=${NOW} onAnswer=${() => {}} check=${check}
    linkFor=${(c) => `#/copy/inbox/${c}`} snooze=${snooze} />`);
  assert.match(links, /href="#\/copy\/inbox\/run-health"/);
  // The goal card snoozes its own alarms.
  const goal = text(html`<${GoalStatusCard} check=${{ ...check, alarms: [{ kind: 'no_run', days: 7, message: 'no run for 7 days' }] }}
    nowMs=${NOW} snooze=${snooze} />`);
  assert.match(goal, /no run for 7 days Snooze…/);
  // Read only (no owner token): no snooze buttons.
  const reader = text(html`<${NeedsYouCard} doc=${DECISIONS} nowMs=${NOW} onAnswer=${() => {}} check=${check} readOnly="Read only" />`);
  assert.doesNotMatch(reader, /Snooze…/);
});

test('the facts card keeps its spaces, names the window from the previous check, and the apply note says what happened', async () => {
  const { FactsCard, windowWords } = await import('../../web/cards/facts.mjs');
  const { applyNote, agentFiltersFromParams, agentFiltersToParams } = await import('../../web/cards/dashboard.mjs');
  const facts = { since: '2026-10-06T12:00:00Z', last_check_at: '2026-10-06T12:00:00Z', latest_check_at: '2026-10-07T12:00:00Z',
    error_rate: { runs: 1, failed: 0, share: 0, median_daily_share: 0, min_runs: 5, spike: false }, spend: {}, run_health: {} };
  const out = text(html`<${FactsCard} check=${{ facts }} nowMs=${NOW} />`);
  assert.match(out, /0 of 1 runs failed \(0%\); the 14-day median day: 0%\. A spike needs 5 runs\./);
  assert.equal(windowWords(facts), 'since the previous check, 6 Oct 12:00 UTC (the latest was 7 Oct 12:00 UTC)');
  assert.equal(windowWords({ since: '2026-09-30T12:00:00Z', last_check_at: null, latest_check_at: '2026-10-07T12:00:00Z' }),
    'since 30 Sep 12:00 UTC: no earlier recorded check, so the last 7 days before the latest check (7 Oct 12:00 UTC)');
  assert.equal(applyNote({ apply: { sent: true, delivered: false, reason: 'undelivered: no Builder command (pulse serve --builder); the message waits in the outbox' } }),
    ' Recorded; the apply message waits in the outbox until a Builder is connected (pulse serve --builder).');
  const f = agentFiltersFromParams({ status: 'running', stuck: '30', group: 'run', period: '24h', stuckonly: '1' });
  assert.deepEqual(f, { groupBy: 'run', period: '24h', session: '', run: '', status: 'running', stuckOnly: true, stuckAfter: '30' });
  assert.deepEqual(agentFiltersFromParams(agentFiltersToParams(f)), f);
  assert.equal(agentFiltersFromParams({ stuck: '-5' }).stuckAfter, '', 'an address with -5 minutes does not filter');
});

test('the chart marks plan changes, decisions and answers, and a range keeps only its days', async () => {
  const { chartMarks } = await import('../../web/cards/goal.mjs');
  const marks = chartMarks({ plan_changes: [{ at: '2026-10-06T16:00:00Z', tool: 'rename_step', reason: 'subscriber_export_v1 is now subscriber_export' }] },
    DECISIONS);
  assert.deepEqual(marks.map((m) => m.kind), ['decision', 'owner_answer', 'decision', 'plan_change']);
  assert.equal(marks[3].label, 'rename_step: subscriber_export_v1 is now subscriber_export');
  const doc = { readings: [{ at: '2026-08-20T09:30:00Z', value: 300, by_run: true }, { at: '2026-09-17T09:30:00Z', value: 380, by_run: true }],
    target: 1000 };
  assert.equal(chartSeries(doc, NOW, '30d').readings.length, 1, 'the last 30 days hold one reading');
  assert.equal(chartSeries(doc, NOW, 'all').readings.length, 2);
  assert.equal(chartSeries(doc, NOW, '30d').start, NOW / 1000 - 30 * 86400);
});
