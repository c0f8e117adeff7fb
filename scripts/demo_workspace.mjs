// Generates the demo workspace `scripts/run.sh` serves: "substack", in the
// Substack case (the subscriber goal unmeasured by any run for
// 20 days while runs went on, a builder-chat reading today, schedules paused;
// plus a run interrupted this morning and a QA request, which its Pulse
// handles: one run_failed turn, fix runs, results in its conversation),
// "digest", a healthy workflow measured by every run, and "inbox", whose
// outside files (changelog, cost ledger, failed runs) fill the goal check's
// context facts. Everything is
// written through the real `pulse` command line (observe, finalize-run).
//
// Substack comes from the goal module's fixture (tests/fixtures/
// make_substack.mjs), which replays the case's rows as of 2026-10-07; the
// demo's clock then stands at that day (DIR/.pulse/demo-now, which run.sh
// passes as --now-file), so the Pulse tab reads the case's own sentences.
// Without the fixture, an equivalent history is generated relative to now.
//
//   node scripts/demo_workspace.mjs DIR [--pulse build/native/pulse]
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, readFileSync, existsSync, mkdtempSync, cpSync, rmSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const dir = args[0] && !args[0].startsWith('--') ? resolve(args[0]) : null;
if (!dir) {
  console.error('usage: node scripts/demo_workspace.mjs DIR [--pulse PATH]');
  process.exit(2);
}
const pi = args.indexOf('--pulse');
const PULSE = pi >= 0 ? args[pi + 1] : join(ROOT, 'build', 'native', 'pulse');
if (existsSync(join(dir, 'Workflow'))) {
  console.error(`demo: ${dir} already holds a workspace; remove it to generate a fresh one`);
  process.exit(2);
}

const HOUR = 3600e3;
const DAY = 24 * HOUR;
const FIXTURE = join(ROOT, 'tests', 'fixtures', 'make_substack.mjs');
const fixture = existsSync(FIXTURE) ? await import(FIXTURE) : null;
// The demo's "now": the case's day with the fixture, this hour without.
const anchor = fixture ? Date.parse(fixture.SUBSTACK_CHECK_AT) : Math.floor(Date.now() / HOUR) * HOUR;
const at = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const daysAgo = (d, hour = 9) => anchor - d * DAY - (new Date(anchor).getUTCHours() - hour) * HOUR;

function pulse(cmd) {
  const r = spawnSync(PULSE, cmd, { encoding: 'utf8' });
  if (r.status !== 0) {
    console.error(`demo: pulse ${cmd.join(' ')}: ${r.stderr || r.error}`);
    process.exit(1);
  }
}

function workflow(name, config, soul) {
  const wf = join(dir, 'Workflow', name);
  mkdirSync(wf, { recursive: true });
  writeFileSync(join(wf, 'workflow.json'), `${JSON.stringify(config, null, 2)}\n`);
  writeFileSync(join(wf, 'soul.md'), soul);
  return wf;
}

let n = 0;
function run(name, wf, startMs, route, status = 'completed', error = '', extra = {}) {
  const id = `r-${String(++n).padStart(4, '0')}`;
  const runDir = join(wf, 'runs', `iteration-${n}`, 'default');
  mkdirSync(runDir, { recursive: true });
  writeFileSync(join(runDir, 'run.json'), JSON.stringify({
    run_id: id, started_at: at(startMs), finished_at: at(startMs + 25 * 60e3), status, trigger: 'schedule:daily', error,
    ...extra,
  }));
  writeFileSync(join(runDir, 'route_selection.json'), JSON.stringify({ route }));
  pulse(['finalize-run', '--workspace', dir, '--workflow', name, '--run-dir', runDir, '--now', at(startMs + 25 * 60e3)]);
  return id;
}

function observe(name, metric, value, atMs, source, runId) {
  const cmd = ['observe', '--workspace', dir, '--workflow', name, '--metric', metric, '--value', String(value),
    '--at', at(atMs), '--source', source, '--now', at(atMs)];
  if (runId) cmd.push('--run-id', runId);
  pulse(cmd);
}

let id;

// ---- substack: the Substack case ----
if (fixture) {
  const tmp = mkdtempSync(join(tmpdir(), 'pulse-demo-'));
  try {
    const made = fixture.makeSubstack(tmp, { pulseBin: PULSE });
    mkdirSync(join(dir, 'Workflow'), { recursive: true });
    cpSync(made.workflowDir, join(dir, 'Workflow', 'substack'), { recursive: true });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  mkdirSync(join(dir, '.pulse'), { recursive: true });
  writeFileSync(join(dir, '.pulse', 'demo-now'), `${at(anchor)}\n`);
} else {
const substack = workflow('substack', {
  pulse: { enabled: true, autonomy: { run: 'ask', outward: 'ask', change: 'ask', answer: 'recommend' },
    goal_check: { not_measured_days: 3, no_run_days: 3 } },
  goal: { primary_metric: { name: 'subscribers', route: 'growth_funnel', direction: 'increase', target: 1000,
    baseline: 200, baseline_at: at(daysAgo(67)), deadline: at(daysAgo(-85)) } },
  schedules: [
    { id: 'daily', cron: '0 9 * * *', enabled: false, after_run: { backup: true, publish: true, notify: true } },
    { id: 'weekly-growth', cron: '0 10 * * 1', enabled: false },
  ],
}, '# Substack\n\nGrow the newsletter to 1,000 subscribers by the end of the year, one useful article at a time.\n');
// Measured by a growth run 20 days ago, then never again by a run.
id = run('substack', substack, anchor - 20 * DAY - 2 * HOUR, 'growth_funnel');
observe('substack', 'subscribers', 380, anchor - 20 * DAY - 2 * HOUR + 20 * 60e3, 'workflow_run', id);
for (const d of [19, 17, 15, 13, 11]) run('substack', substack, daysAgo(d), 'growth_funnel');
for (const d of [10, 10, 9, 9, 8, 8]) run('substack', substack, daysAgo(d, d === 10 ? 9 : 14), 'publish_review');
run('substack', substack, daysAgo(10, 15), 'research');
run('substack', substack, daysAgo(9, 16), 'research');
run('substack', substack, daysAgo(8, 17), 'write_article');
run('substack', substack, daysAgo(7), 'growth_funnel', 'failed', 'subscriber export: 401 unauthorized');
// Read off the dashboard in a Builder chat this morning: not the workflow measuring.
observe('substack', 'subscribers', 412, anchor - 2 * HOUR, 'builder_chat');
}

// Substack this morning: the owner started growth_funnel by hand; it was
// interrupted before its after-run hook, leaving only its run.json with a
// CONCERNS: line. The goal check never counts it (no finalize-run), but it
// is a failed run of the last day: the first ticks wake Substack's Pulse for
// it once (a run_failed turn), which asks for QA; the fix runs for that and
// for the owner's QA request below report back into the conversation, and
// the Run health card shows all of it.
{
  const wfDir = join(dir, 'Workflow', 'substack');
  const runDir = join(wfDir, 'runs', `iteration-${fixture ? 121 : ++n}`, 'default');
  mkdirSync(runDir, { recursive: true });
  writeFileSync(join(runDir, 'run.json'), JSON.stringify({
    run_id: 'r-0121', started_at: at(anchor - 6 * HOUR - 30 * 60e3), finished_at: at(anchor - 6 * HOUR), status: 'interrupted',
    trigger: 'manual', error: 'step export_subscribers: interrupted after 1800 s waiting for the newsletter API',
    concerns: ['CONCERNS: subscriber export stopped halfway; no subscribers reading was recorded'],
  }));
  writeFileSync(join(runDir, 'route_selection.json'), JSON.stringify({ route: 'growth_funnel' }));
}

// ---- Slack: where Substack's notifications go (docs/slack.md) ----
// Substack answers to substack-pulse, ana is its owner, and its
// notifications go to #substack-growth. The Web API address is a closed
// loopback port, so nothing leaves the machine: the messages card shows the
// summary's real delivery state (failed, with the reason and the time it is
// retried) and the server logs it once.
{
  const file = join(dir, 'Workflow', 'substack', 'workflow.json');
  const config = JSON.parse(readFileSync(file, 'utf8'));
  config.slug = 'substack';
  config.access = [{ account: 'ana', role: 'owner' }];
  config.pulse = { ...config.pulse, notify: { ...(config.pulse.notify || {}), slack_channel: '#substack-growth' } };
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  mkdirSync(join(dir, '.pulse'), { recursive: true });
  writeFileSync(join(dir, '.pulse', 'slack.json'), `${JSON.stringify({
    signing_secret: 'demo-signing-secret', bot_token: 'xoxb-demo', api_base_url: 'http://127.0.0.1:9/api' }, null, 2)}\n`,
  { mode: 0o600 });
  writeFileSync(join(dir, '.pulse', 'accounts.json'), `${JSON.stringify([{ account: 'ana', emails: ['ana@example.com'] }], null, 2)}\n`);
}

// ---- digest: healthy, measured by every run ----
n = 0;
const digest = workflow('digest', {
  pulse: { enabled: true, autonomy: { run: 'ask', outward: 'ask', change: 'ask', answer: 'recommend' } },
  goal: { primary_metric: { name: 'weekly_readers', route: 'publish', direction: 'increase', target: 500,
    baseline: 100, baseline_at: at(daysAgo(30)), deadline: at(daysAgo(-60)) } },
  // What each schedule does after its run (the Pulse tab's checkboxes); the
  // weekend schedule still says it the retired way (pulse_mode), which
  // `pulse serve` migrates to after_run when it starts.
  schedules: [
    { id: 'daily', cron: '0 7 * * *', enabled: true, after_run: { backup: true, publish: true, notify: true } },
    { id: 'weekend', cron: '0 9 * * 6', enabled: true, pulse_mode: 'off' },
  ],
  after_manual_run: { backup: false, publish: false, notify: true },
}, '# Digest\n\nA daily digest of the team\'s notes; 500 weekly readers within three months.\n');
// Every day's 07:00 run, today's included, and last Saturday's weekend run:
// no schedule is late (core/attention/attention.h watches each).
for (let d = 10; d >= 0; d--) {
  id = run('digest', digest, daysAgo(d, 7), 'publish');
  observe('digest', 'weekly_readers', 180 + (10 - d) * 12, daysAgo(d, 7) + 20 * 60e3, 'workflow_run', id);
}
{
  const saturday = [...Array(7).keys()].map((d) => d + 1).find((d) => new Date(daysAgo(d, 9)).getUTCDay() === 6);
  run('digest', digest, daysAgo(saturday, 9), 'publish', 'completed', '', { trigger: 'schedule:weekend' });
}

// ---- Workflow Review: the plans and their changes, reviewed before a run ----
// Digest's plan is sound: reviewed once (the built-in reviewer), its runs go.
// Substack's Builder renamed a step yesterday and growth_funnel still names
// the old one: the review leaves that break, which stops only the runs that
// touch growth_funnel.
function plan(name, wf, steps, change) {
  mkdirSync(join(wf, 'planning'), { recursive: true });
  writeFileSync(join(wf, 'planning', 'plan.json'), `${JSON.stringify({ steps }, null, 2)}\n`);
  writeFileSync(join(wf, 'planning', 'changelog.jsonl'), `${JSON.stringify(change)}\n`);
  // Exit 1 is the answer "stop", not a failure of the demo.
  const r = spawnSync(PULSE, ['pre-run', '--workspace', dir, '--workflow', name, '--now', at(anchor), '--json'], { encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 1) {
    console.error(`demo: pulse pre-run ${name}: ${r.stderr}`);
    process.exit(1);
  }
}
plan('digest', digest, [{ id: 'collect_notes' }, { id: 'summarize', depends_on: ['collect_notes'] },
  { id: 'publish', depends_on: ['summarize'] }],
{ at: at(daysAgo(2, 15)), tool: 'update_step', reason: 'five items instead of ten', steps: ['summarize'], who: 'ana', session: 'b-ana-2' });
plan('substack', join(dir, 'Workflow', 'substack'), [{ id: 'research' }, { id: 'write_article', depends_on: ['research'] },
  { id: 'subscriber_export' }, { id: 'growth_funnel', depends_on: ['subscriber_export_v1'] }, { id: 'publish_review' }],
{ at: at(daysAgo(1, 16)), tool: 'rename_step', reason: 'subscriber_export_v1 is now subscriber_export', steps: ['subscriber_export'], who: 'ana', session: 'b-ana-3' });

// ---- focus areas (workflow.json pulse.focus_area_details) and a QA request ----
const day = (ms) => at(ms).slice(0, 10);
const owner = (name, args) => pulse([...args, '--workspace', dir, '--workflow', name, '--now', at(anchor)]);
// Substack: the owner's focus, tracked today, and Pulse's proposal waiting for Confirm or Reject.
owner('substack', ['focus', 'add', '--title', 'Measure subscribers on every growth run', '--end-date', day(anchor + 14 * DAY),
  '--check', 'a workflow_run reading of subscribers every day']);
owner('substack', ['focus', 'track', '--id', 'fa-1', '--note', 'still no reading by a run; the export fails with 401']);
owner('substack', ['focus', 'propose', '--title', 'Fix the subscriber export login', '--end-date', day(anchor + 7 * DAY),
  '--check', 'growth_funnel completes with a reading']);
owner('substack', ['qa', 'request', '--what', 'growth_funnel: the subscriber export step fails with 401 unauthorized',
  '--why', 'the goal has not been measured by a run for 20 days']);
// Substack's Pulse conversation: the owner talked to Pulse on two days (the
// built-in rules runner answers from the facts and says what it cannot
// judge); the server's first goal check continues the same conversation.
pulse(['talk', '--workspace', dir, '--workflow', 'substack', '--now', at(daysAgo(2, 18)),
  '--message', 'Why has the subscriber count not moved since September?']);
pulse(['talk', '--workspace', dir, '--workflow', 'substack', '--now', at(daysAgo(1, 19)), '--account', 'ana',
  '--message', 'This month, focus on fixing the subscriber export. Always keep the welcome email friendly.']);
// Digest: one active area, one closed with its lesson (also in goal memory).
owner('digest', ['focus', 'add', '--title', 'Weekly reader survey', '--end-date', day(anchor + 21 * DAY), '--check', '50 answers a week']);
owner('digest', ['focus', 'add', '--title', 'Shorter morning digest', '--end-date', day(anchor + 3 * DAY), '--check', 'open rate above 40%']);
owner('digest', ['focus', 'close', '--id', 'fa-2', '--lesson', 'five items read better than ten: open rate 46%']);

// ---- digest: a turn thought by a model ----
// With `pulse serve --model` (PULSE_MODEL for run.sh) a model thinks for
// Pulse's turns (docs/models.md). The demo has no model vendor to call, so
// one exchange is recorded through the real agent loop instead: a scripted
// model server on loopback (tests/server/model_server.mjs) answers in
// Anthropic's Messages format with the replies below, and `pulse talk
// --model anthropic:scripted-demo` runs the turn. The tool calls pass the
// guard (the owner's lasting direction goes to goal memory as an owner line,
// allowed in an owner relay), the tokens land on the turn's agent-log row,
// and prices.json prices them into digest's cost ledger as Pulse's own spend.
// What prices.json holds: USD per million tokens, looked up as
// provider:name, then name. Local models are free: no price, no cost row.
mkdirSync(join(dir, '.pulse'), { recursive: true });
writeFileSync(join(dir, '.pulse', 'prices.json'), `${JSON.stringify({
  'gpt-4o-mini': { input_per_mtok: 0.15, output_per_mtok: 0.6 },
  'gpt-4o': { input_per_mtok: 2.5, output_per_mtok: 10 },
  'claude-haiku-4-5': { input_per_mtok: 1, output_per_mtok: 5 },
  'claude-sonnet-4-5': { input_per_mtok: 3, output_per_mtok: 15 },
  'anthropic:scripted-demo': { input_per_mtok: 3, output_per_mtok: 15 },
}, null, 2)}\n`);
{
  const { startModelServer } = await import(pathToFileURL(join(ROOT, 'tests', 'server', 'model_server.mjs')).href);
  const model = await startModelServer({
    models: ['scripted-demo'],
    script: [
      { text: 'Reading the goal status first.', tools: [{ name: 'get_pulse_state', arguments: { view: 'goal_status' } }],
        usage: { input: 11800, output: 60 } },
      { tools: [{ name: 'record_pulse_goal_memory', arguments: { action: 'add', section: 'owner', source: 'owner answer',
        text: 'Keep the digest at five items after the focus on a shorter digest ends' } }], usage: { input: 12400, output: 90 } },
      { text: 'Kept in goal memory as your direction: five items from now on. Weekly readers are at 288, ahead of '
        + 'the line to 500 (about 230 expected by now), and every daily run measures them: on track. The reader '
        + 'survey focus runs three more weeks.', usage: { input: 12700, output: 120 } },
    ],
  });
  const talked = await new Promise((done) => {
    const p = spawn(PULSE, ['talk', '--workspace', dir, '--workflow', 'digest', '--now', at(anchor - 3 * HOUR),
      '--message', 'Keep the digest at five items from now on. How are we doing on readers?',
      '--model', 'anthropic:scripted-demo', '--model-url', model.anthropicUrl, '--model-key-env', 'PULSE_DEMO_NO_KEY'],
    { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => { err += d; });
    p.on('close', (status) => done({ status, err }));
  });
  await model.close();
  if (talked.status !== 0 || model.remaining() !== 0) {
    console.error(`demo: the model turn in digest did not run through (exit ${talked.status}, ${model.remaining()} answers left): ${talked.err}`);
    process.exit(1);
  }
}

// ---- inbox: the goal check's context facts ----
// What the goal check reads beside the runs: the plan (which steps the
// goal's route runs), its changelog (one change to a goal step, one
// elsewhere, one line that is not JSON), the chats, the cost ledger, and an
// afternoon two days ago when a Gmail login expired: the triage route failed
// four times (an error-rate spike, login hints, needs re-auth) and one reply
// run cost four times the median (a cost spike on the goal's route); today's
// 08:00 run has not come (a late schedule). Its goal is on track, yet all of
// this is what needs the owner: the overview, `pulse status` and `pulse
// check --fail-on` flag it (its attention items). Pulse's daily check is off
// here, so no recorded check narrows the facts' window (the last 7 days).
n = 0;
const inbox = workflow('inbox', {
  pulse: { enabled: false, autonomy: { run: 'ask', outward: 'ask', change: 'ask', answer: 'recommend' } },
  goal: { primary_metric: { name: 'replies_sent', route: 'reply', direction: 'increase', target: 300,
    baseline: 0, baseline_at: at(daysAgo(30)), deadline: at(daysAgo(-60)) } },
  schedules: [{ id: 'daily', cron: '0 8 * * *', enabled: true }],
}, '# Inbox\n\nAnswer every customer email within a day; 300 replies a quarter.\n');
const replyIds = [];
for (let d = 10; d >= 1; d--) {
  id = run('inbox', inbox, daysAgo(d, 8), 'reply');
  replyIds.push([d, id]);
  observe('inbox', 'replies_sent', 100 + (10 - d) * 4, daysAgo(d, 8) + 20 * 60e3, 'workflow_run', id);
}
mkdirSync(join(inbox, 'planning'), { recursive: true });
writeFileSync(join(inbox, 'planning', 'plan.json'), `${JSON.stringify({
  routes: { reply: { steps: ['read-inbox', 'draft-reply', 'send-reply'] }, triage: { steps: ['label-mail'] } },
}, null, 2)}\n`);
writeFileSync(join(inbox, 'planning', 'changelog.jsonl'), [
  { at: at(daysAgo(3, 11)), tool: 'update_step', reason: 'Shorter replies: three sentences at most', steps: ['draft-reply'], who: 'ana', session: 'b-ana-1' },
  { at: at(daysAgo(3, 12)), tool: 'set_step_model', reason: 'a cheaper model for labels', steps: ['label-mail'], who: 'ana', session: 'b-ana-1' },
].map((e) => JSON.stringify(e)).join('\n') + '\n{"at": "yesterday", "tool": \n');
writeFileSync(join(inbox, 'chats.json'), `${JSON.stringify([
  { session_id: 'b-ana-1', kind: 'builder', account: 'ana', last_active_at: at(daysAgo(3, 12)), live: false, busy: false },
], null, 2)}\n`);
const triage = [
  ['failed', 'gmail: token refresh failed: invalid_grant', []],
  ['failed', 'MCP server gmail: connection refused', ['CONCERNS: inbox not labelled; re-authenticate Gmail in Settings']],
  ['error', 'HTTP 401 Unauthorized from gmail.googleapis.com', []],
  ['failed', 'gmail: token refresh failed: invalid_grant', []],
  ['completed', '', ['CONCERNS: 3 mails skipped (attachments too large)']],
];
const triageIds = triage.map(([status, error, concerns], i) =>
  run('inbox', inbox, daysAgo(2, 10 + i), 'triage', status, error, { concerns, cost_usd: 0.05 }));
// Every reply run about $0.80, yesterday's $3.20; triage runs $0.05; Builder
// chat and Pulse turns carry no run id (weekly totals only).
const costs = replyIds.map(([d, rid]) => [at(daysAgo(d, 8) + 20 * 60e3), rid, 'run', d === 1 ? 3.2 : 0.8]);
triageIds.forEach((rid, i) => costs.push([at(daysAgo(2, 10 + i) + 20 * 60e3), rid, 'run', 0.05]));
for (const d of [9, 6, 3]) costs.push([at(daysAgo(d, 12)), null, 'builder_chat', 1.1]);
for (const d of [8, 1]) costs.push([at(daysAgo(d, 6)), null, 'pulse_turn', 0.3]);
await writeLedger(join(inbox, 'costs', 'costs.sqlite'), costs);

// ---- asks: the chats and Pulse ----
// Substack: the owner's Builder chat asked Pulse (an owner relay), and a
// growth step asked for a recommendation; each is one round of a thread in
// Pulse's conversation, answered by the built-in rules runner with its
// decision lines. Inbox: Pulse asked the Builder chat a question (no
// Builder command here: no_builder_chat) and sent a fix that Change=ask
// holds, so it waits in Needs you as "Make this fix"; its Accept sends the
// apply message, which waits in the outbox until `pulse serve --builder`.
writeFileSync(join(dir, 'Workflow', 'substack', 'chats.json'), `${JSON.stringify([
  { session_id: 'b-ana-7', kind: 'builder', account: 'ana', last_active_at: at(anchor - HOUR), live: true, busy: false },
], null, 2)}\n`);
const asked = (name, args) => pulse(['ask', ...args, '--workspace', dir, '--workflow', name, '--now', at(anchor - 50 * 60e3)]);
asked('substack', ['--caller', 'builder', '--session', 'b-ana-7', '--account', 'ana',
  '--message', 'Should growth_funnel record subscribers itself, or is my dashboard reading enough?']);
asked('substack', ['--caller', 'step', '--session', 'step-growth-summary',
  '--message', 'Which metric name should the export step record?']);
const opened = spawnSync(PULSE, ['session', 'open', '--workspace', dir, '--workflow', 'inbox', '--turn', 'goal_work',
  '--now', at(anchor)], { encoding: 'utf8' });
const pulseSession = JSON.parse(opened.stdout);
for (const call of [
  { kind: 'question', message: 'Why did draft-reply get shorter three days ago?', builder_session_id: 'b-ana-1' },
  { kind: 'fix', title: 'Re-connect Gmail for triage', message: 'Re-authenticate the Gmail connection the triage route uses',
    evidence: 'four triage runs failed with invalid_grant and 401 two days ago', why: 'triage stopped labelling mail' },
]) {
  // A fix held at change=ask is refused (exit 1) and raised as the decision.
  spawnSync(PULSE, ['tool', '--workspace', dir, '--workflow', 'inbox', '--now', at(anchor), '--token', pulseSession.token,
    '--tool', 'ask_builder', '--args', JSON.stringify(call)], { encoding: 'utf8' });
}

// costs/costs.sqlite through the WASM module's sql.js-compatible Database
// (no native SQLite binding is installed), or the sqlite3 shell without it.
async function writeLedger(path, rows) {
  mkdirSync(dirname(path), { recursive: true });
  const wasm = join(ROOT, 'build', 'wasm');
  if (existsSync(join(wasm, 'sqljs-api.mjs'))) {
    const { initPulse } = await import(pathToFileURL(join(wasm, 'sqljs-api.mjs')).href);
    const SQL = await initPulse({ wasmBinary: readFileSync(join(wasm, 'pulse.wasm')) });
    const db = new SQL.Database();
    db.run('CREATE TABLE cost_events(at TEXT, run_id TEXT NULL, source TEXT, usd REAL)');
    for (const r of rows) db.run('INSERT INTO cost_events VALUES (?, ?, ?, ?)', r);
    writeFileSync(path, db.export());
    db.close();
    return;
  }
  const q = (v) => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
  const sql = ['CREATE TABLE cost_events(at TEXT, run_id TEXT NULL, source TEXT, usd REAL);',
    ...rows.map((r) => `INSERT INTO cost_events VALUES (${r.map(q).join(', ')});`)].join('\n');
  const r = spawnSync('sqlite3', [path], { input: sql, encoding: 'utf8' });
  if (r.status !== 0) console.error(`demo: no cost ledger (build/wasm is not built and sqlite3 failed: ${r.stderr || r.error})`);
}

// ---- Inspect: what Substack's own runs delegated ----
// Background agents the workflow's runs started (a gate, reviewers,
// call_sub_agent and run_in_background delegations), recorded under the
// run's id as pulse_run_id, so a query joins them to goal_run_facts (the
// Pulse tab's Inspect: more than a page of the agent log, filters, the top
// kinds, the starting point "Agents of each workflow run"). The run
// interrupted this morning left two of its agents running. Results as agents
// write them: JSON, lists with commas and quotes, several lines, words in
// other scripts. One `pulse agent-log batch` records them all.
{
  const wfDir = join(dir, 'Workflow', 'substack');
  const runs = existsSync(join(wfDir, 'schedule-runs.json')) ? JSON.parse(readFileSync(join(wfDir, 'schedule-runs.json'), 'utf8')) : [];
  for (const it of existsSync(join(wfDir, 'runs')) ? readdirSync(join(wfDir, 'runs')) : []) {
    const file = join(wfDir, 'runs', it, 'default', 'run.json');
    if (existsSync(file)) runs.push(JSON.parse(readFileSync(file, 'utf8')));
  }
  const special = {
    'r-0114': [['collect-signups', 'Collect signups', 'call_sub_agent',
      '{"signups": 0, "source": "subscriber export", "retry": true, "note": "the export timed out"}', '19m2s'],
    ['summarize-week', 'Summarize the week', 'run_in_background',
      'Drafted 3 posts: "Why we write", "Tools, tips & tricks", "Q&A"\nNext: schedule them', '41.2s']],
    'r-0118': [['translate-intro', 'Translate the intro', 'call_sub_agent', 'Bonjour, naïve café — 東京の読者へ, "welcome", 🐎', '12.9s']],
    'r-0119': [['research-topics', 'Research topics', 'call_sub_agent', '["growth loops", "referral programs", "welcome email"]', '3m10s']],
  };
  const routine = [['gate', 'Gate', 'gate', 'nothing due'], ['review-draft', 'Review the draft', 'reviewer', 'approved with 2 small edits'],
    ['check-links', 'Check the links', 'call_sub_agent', 'all 14 links answer'], ['fix-typos', 'Fix typos', 'fixer', '3 typos fixed'],
    ['schedule-post', 'Schedule the post', 'run_in_background', '{"scheduled": true, "slot": "09:00"}']];
  const stamp = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const events = [];
  for (const r of runs) {
    if (!r.run_id || !r.started_at) continue;
    const t0 = Date.parse(r.started_at);
    const rows = [...routine.map(([a, name, kind, result], i) => [a, name, kind, result, `${30 + 7 * i}s`]), ...(special[r.run_id] || [])];
    rows.forEach(([agent, name, kind, result, duration], i) => {
      const common = { session: `run-${r.run_id}`, agent };
      events.push({ event: 'started', ...common, name, kind, pulse_run_id: r.run_id, at: stamp(t0 + (i + 1) * 60e3) });
      events.push({ event: 'completed', ...common, status: 'completed', result, duration, at: stamp(t0 + (i + 6) * 60e3) });
    });
  }
  for (const [agent, name, kind, at] of [['export-subscribers', 'Export subscribers', 'call_sub_agent', '2026-10-07T05:31:00Z'],
    ['watch-export', 'Watch the export', 'run_in_background', '2026-10-07T05:33:00Z']]) {
    if (fixture) events.push({ event: 'started', session: 'run-r-0121', agent, name, kind, pulse_run_id: 'r-0121', at });
  }
  const batch = spawnSync(PULSE, ['agent-log', 'batch', '--workspace', dir, '--workflow', 'substack'],
    { input: events.map((e) => JSON.stringify(e)).join('\n') + '\n', encoding: 'utf8' });
  if (batch.status !== 0 || batch.stderr) {
    console.error(`demo: pulse agent-log batch: ${batch.stderr || batch.error}`);
    process.exit(1);
  }
}

// Digest's year before Pulse: the platform's schedule-runs.json, written last
// so nothing above imports it. `pulse serve` brings it in a batch a tick
// (--import-batch, 250), the newest first, and the tab says so until it is in.
{
  const history = [];
  for (let d = 365; d >= 31; d--) {
    for (const hour of [7, 17]) {
      const start = daysAgo(d, hour);
      history.push({ run_id: `h-${d}-${hour}`, schedule_id: 'daily', started_at: at(start),
        finished_at: at(start + 20 * 60e3), status: 'completed', route: 'publish' });
    }
  }
  writeFileSync(join(digest, 'schedule-runs.json'), `${JSON.stringify(history)}\n`);
}

console.log(`demo: workspace ready in ${dir} (substack: the Substack case; digest: healthy; inbox: the goal check's context facts)` +
  (fixture ? `; its clock stands at ${at(anchor)} (${join(dir, '.pulse', 'demo-now')})` : ''));
