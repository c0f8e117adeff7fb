// QA and architecture owned by Pulse, against the real server and CLI: a
// goal workflow's pass has no review turns (Gate, Goal Work in the
// conversation, Finalize; Architecture and Technical recorded not due),
// a workflow without a goal runs all three; a failed workflow run wakes Pulse
// once (one run_failed turn over many ticks and a restart), which requests QA
// when the failure threatens the goal; the tick starts the fix run and its
// result comes back into the conversation and the next turn's qa_results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync, readdirSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  request, startServer, makeTempDir, makeWorkspace, buildSubstack, setNow, waitFor, pulse, SUBSTACK_CONFIG,
  runnerWritableDir,
} from './helpers.mjs';

const NOW = '2026-10-07T12:00:00Z';

async function conversation(s, wf = 'substack') {
  const r = await request(`${s.url}api/workflows/${wf}/conversation`);
  assert.equal(r.status, 200, r.text);
  return r.body;
}
async function agentRows(s, wf = 'substack') {
  return (await request(`${s.url}api/workflows/${wf}/agent-log`)).body.rows;
}
async function ticksPass(s, n) {
  const start = (await request(`${s.url}api/health`)).body.ticks;
  await waitFor(async () => (await request(`${s.url}api/health`)).body.ticks >= start + n, { what: `${n} ticks` });
}
const failedTurns = (conv) => conv.turns.filter((t) => t.turn === 'run_failed');

// A failed workflow run this morning, on the goal's route, as the after-run
// hook records it (run.json with its CONCERNS: line).
function failedRun(ws, id = 'r-0900', finished = '2026-10-07T08:30:00Z') {
  const started = new Date(Date.parse(finished) - 30 * 60e3).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const dir = join(ws, 'Workflow', 'substack', 'runs', `iteration-${id.slice(2)}`, 'default');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'run.json'), JSON.stringify({
    run_id: id, started_at: started, finished_at: finished, status: 'failed', trigger: 'manual',
    error: 'step export_subscribers: HTTP 500 from the newsletter API', concerns: ['CONCERNS: subscriber export skipped'],
  }));
  writeFileSync(join(dir, 'route_selection.json'), JSON.stringify({ route: 'growth_funnel' }));
  const r = pulse(['finalize-run', '--workspace', ws, '--workflow', 'substack', '--run-dir', dir, '--now', finished]);
  assert.equal(r.status, 0, r.stderr);
}

test('TestGoalWorkflowPassHasNoReviewTurnsAndAFailedRunWakesPulseOnce', async () => {
  const tmp = makeTempDir('pulse-qa-pass-');
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws);
  makeWorkspace(tmp.dir, { nogoal: { pulse: { enabled: true }, schedules: [{ id: 'daily', cron: '0 9 * * *', enabled: true }] } });

  // With a goal: Gate, Goal Work in Pulse's conversation, Finalize.
  const goal = pulse(['pass', '--workspace', ws, '--workflow', 'substack', '--now', '2026-10-07T06:00:00Z', '--json']);
  assert.equal(goal.status, 0, goal.stderr);
  assert.deepEqual(goal.json.pass.steps.map((s) => s.step), ['gate', 'goal_work', 'finalize']);
  assert.match(goal.json.pass.steps[0].detail, /no Architecture or Technical turn/);
  const byModule = Object.fromEntries(goal.json.worklist.map((r) => [r.module, r]));
  assert.equal(byModule.goal_work.due, true);
  assert.equal(byModule.goal_work.state, 'completed');
  for (const m of ['architecture', 'technical']) {
    assert.equal(byModule[m].due, false, m);
    assert.equal(byModule[m].state, 'not_due', m);
    assert.match(byModule[m].reason, /this workflow's Pulse owns/);
  }
  assert.deepEqual(goal.json.turns.map((t) => t.turn), ['goal_work'], 'one turn, in the conversation');
  assert.match(goal.json.turns[0].text, /no Architecture or Technical turn/, 'Goal Work is told so');

  // Without a goal: Goal Work, Architecture, Technical, each in its own session.
  const none = pulse(['pass', '--workspace', ws, '--workflow', 'nogoal', '--now', '2026-10-07T06:00:00Z', '--json']);
  assert.equal(none.status, 0, none.stderr + none.stdout);
  assert.deepEqual(none.json.pass.steps.map((s) => s.step), ['gate', 'goal_work', 'architecture', 'technical', 'finalize']);
  for (const r of none.json.worklist) {
    assert.equal(r.due, true, r.module);
    assert.equal(r.state, 'completed', `${r.module}: ${r.detail}`);
  }
  assert.match(none.json.pass.steps[2].detail, /Architecture \(rules runner/);
  assert.match(none.json.pass.steps[3].detail, /^completed: Checked the workflow's runs/);

  // A failed run this morning, and a run folder whose run.json is broken:
  // one run_failed turn over many ticks; the broken folder is named, the
  // tick goes on.
  failedRun(ws);
  const broken = join(ws, 'Workflow', 'substack', 'runs', 'iteration-950', 'default');
  mkdirSync(broken, { recursive: true });
  writeFileSync(join(broken, 'run.json'), '{"run_id": "r-0950", ');
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, NOW);
  const s = await startServer(ws, ['--tick-seconds', '0.2', '--now-file', nowFile]);
  try {
    const turn = await waitFor(async () => {
      const t = failedTurns(await conversation(s));
      return t.length && t[0].state !== 'running' ? t[0] : null;
    }, { what: 'the run_failed turn' });
    assert.equal(turn.state, 'completed', JSON.stringify(turn));
    assert.match(turn.text, /^PULSE TURN run_failed/);
    assert.match(turn.text, /run r-0900 \(failed, route growth_funnel/);
    assert.match(turn.text, /CONCERNS: subscriber export skipped/);
    assert.match(turn.reply, /QA requested \(request \d+\)/);
    assert.match(turn.reply, /goal's route growth_funnel/);
    // Its QA request becomes a fix run, whose result comes back.
    const qa = await waitFor(async () => {
      const list = (await request(`${s.url}api/workflows/substack/requests?kind=qa`)).body.requests;
      return list.length && list[0].status === 'done' ? list[0] : null;
    }, { what: 'the fix run' });
    assert.match(qa.what, /r-0900/);
    assert.equal(qa.detail.qa_result.status, 'completed');
    assert.match(qa.detail.qa_result.technical_review, /1 failed/);
    await waitFor(async () => (await conversation(s)).turns.some((t) => t.turn === 'qa_result'), { what: 'the result line' });

    await ticksPass(s, 5);
    const conv = await conversation(s);
    assert.equal(failedTurns(conv).length, 1, 'one turn for one failed run');
    const rows = await agentRows(s);
    assert.equal(rows.filter((r) => r.kind === 'run_failed').length, 1);
    assert.equal(rows.filter((r) => r.kind === 'qa_fix').length, 1, 'one fix run for one request');
    const seen = (await request(`${s.url}api/workflows/substack/failed-runs`)).body.failed_runs;
    assert.deepEqual(seen.map((r) => r.run_id), ['r-0900']);
    assert.match(seen[0].outcome, /^completed: Run r-0900 failed/);
    // The broken run.json is named in run_health and stopped nothing.
    const facts = (await request(`${s.url}api/workflows/substack/facts`)).body;
    assert.ok(facts.run_health.unreadable.some((u) => u.folder === 'iteration-950'
      && /runs\/iteration-950\/default\/run\.json/.test(u.line)), JSON.stringify(facts.run_health.unreadable));
    // The workflow without a goal gets no run_failed turn and no conversation.
    assert.equal((await agentRows(s, 'nogoal')).filter((r) => r.kind === 'run_failed').length, 0);
  } finally {
    await s.stop();
  }
});

test('a restart between ticks still gives one failed run one turn', async () => {
  const tmp = makeTempDir('pulse-qa-restart-');
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws);
  failedRun(ws);
  // Older than a day: the safety net leaves it to the goal check.
  failedRun(ws, 'r-0800', '2026-10-06T11:00:00Z');
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, NOW);
  let s = await startServer(ws, ['--tick-seconds', '0.2', '--now-file', nowFile]);
  try {
    // Killed as soon as the turn for the run has started (claimed, its
    // agent-log row written), whether or not it finished.
    await waitFor(async () => {
      const seen = (await request(`${s.url}api/workflows/substack/failed-runs`)).body.failed_runs;
      return seen.length === 1 && seen[0].pulse_run_id;
    }, { what: 'the claim', intervalMs: 20 });
    await s.stop('SIGKILL');
    s = await startServer(ws, ['--tick-seconds', '0.2', '--now-file', nowFile]);
    await ticksPass(s, 5);
    await waitFor(async () => !(await agentRows(s)).some((r) => r.status === 'running'), { what: 'no turn running' });
    await ticksPass(s, 3);
    const conv = await conversation(s);
    assert.ok(failedTurns(conv).length <= 1, JSON.stringify(failedTurns(conv)));
    const seen = (await request(`${s.url}api/workflows/substack/failed-runs`)).body.failed_runs;
    assert.deepEqual(seen.map((r) => r.run_id), ['r-0900']);
    assert.equal((await agentRows(s)).filter((r) => r.kind === 'run_failed').length, 1);
  } finally {
    await s.stop();
  }
});

// A runner for QA: records what each turn was handed; a fix run tries a Run
// tool (held), then answers with its JSON result, or fails when asked to.
const RUNNER = `
import { readFileSync, writeFileSync } from 'node:fs';
const input = JSON.parse(readFileSync(0, 'utf8'));
const kind = process.env.PULSE_TURN;
const file = process.argv[2] + '/' + kind + '-' + Date.now() + '-' + Math.floor(Math.random() * 1e6) + '.json';
writeFileSync(file, JSON.stringify({ input, session: process.env.PULSE_SESSION }));
if (kind === 'qa_fix') {
  const r = await fetch(process.env.PULSE_TOOL_URL + 'execute_step', { method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.MCP_API_TOKEN }, body: '{}' });
  if (input.context.qa_request.what.includes('unreachable')) { console.error('no network'); process.exit(3); }
  console.log('looked at the export step');
  console.log(JSON.stringify({ status: 'completed', technical_review: 'the export API key expired (execute_step: HTTP ' + r.status + ')',
    reason: 'rotated the key in the step config' }));
} else {
  console.log('Pulse read ' + ((input.context.qa_results || []).length) + ' QA results');
}
`;

test('a QA request becomes one fix run whose result reaches the conversation and the next turn\'s qa_results', async () => {
  const tmp = makeTempDir('pulse-qa-fix-');
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws, 'substack', { ...SUBSTACK_CONFIG, pulse: { ...SUBSTACK_CONFIG.pulse, autonomy: { run: 'auto', outward: 'ask', change: 'ask' } } });
  const cli = (args) => pulse([...args, '--workspace', ws, '--workflow', 'substack', '--now', NOW]);
  assert.equal(cli(['qa', 'request', '--what', 'growth_funnel: the subscriber export fails', '--why', 'no reading for 20 days']).status, 0);
  assert.equal(cli(['qa', 'request', '--what', 'the unreachable analytics step']).status, 0);
  const empty = cli(['qa', 'request', '--what', '  ']);
  assert.equal(empty.status, 2);
  assert.match(empty.stderr, /"what" is empty/);
  writeFileSync(join(tmp.dir, 'runner.mjs'), RUNNER);
  const out = join(tmp.dir, 'out');
  runnerWritableDir(out);
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, NOW);
  const s = await startServer(ws, ['--tick-seconds', '0.2', '--now-file', nowFile,
    '--runner', `node ${join(tmp.dir, 'runner.mjs')} ${out}`, '--runner-timeout', '60',
    '--sandbox-allow-read', join(tmp.dir, 'runner.mjs'), '--sandbox-allow-write', out]);
  try {
    const done = await waitFor(async () => {
      const list = (await request(`${s.url}api/workflows/substack/requests?kind=qa`)).body.requests;
      return list.every((r) => r.status === 'done' || r.status === 'failed') ? list : null;
    }, { what: 'both fix runs', timeoutMs: 60000 });
    const [failed, ok] = done;  // newest first
    assert.equal(ok.status, 'done');
    assert.equal(ok.detail.qa_result.status, 'completed');
    // Run is held in a qa_fix turn even at run=auto.
    assert.match(ok.detail.qa_result.technical_review, /execute_step: HTTP 403/);
    assert.equal(ok.detail.qa_result.reason, 'rotated the key in the step config');
    assert.equal(failed.status, 'failed');
    assert.match(failed.detail.qa_result.reason, /runner exited with status 3: no network/);

    // Each fix run was handed its request, its own session and the check skill.
    const files = readdirSync(out).filter((f) => f.startsWith('qa_fix-'));
    assert.equal(files.length, 2);
    const fix = files.map((f) => JSON.parse(readFileSync(join(out, f), 'utf8')))
      .find((d) => d.input.context.qa_request.what.includes('export'));
    assert.match(fix.session, /^schedule-qafix--[0-9a-f]{16}-x\d+$/);
    assert.equal(fix.input.turn.kind, 'qa_fix');
    assert.match(fix.input.charter, /QA fix run Pulse asked for/);
    assert.deepEqual(fix.input.skills.map((k) => k.name), ['goal-lead-check.md']);
    assert.match(fix.input.skills[0].text, /## Failed runs/);

    // Not retried: a few more ticks start no third fix run.
    await ticksPass(s, 5);
    assert.equal((await agentRows(s)).filter((r) => r.kind === 'qa_fix').length, 2);
    const lines = (await conversation(s)).turns.filter((t) => t.turn === 'qa_result');
    assert.equal(lines.length, 2);
    assert.ok(lines.some((l) => /technical review: the export API key expired/.test(l.text)));

    // The next turn reads the results.
    const said = await request(`${s.url}api/workflows/substack/messages`, { method: 'POST', token: s.ownerToken, body: { text: 'what did QA find?' } });
    assert.equal(said.status, 202, said.text);
    const ask = await waitFor(() => {
      const f = readdirSync(out).find((x) => x.startsWith('ask_pulse-'));
      return f ? JSON.parse(readFileSync(join(out, f), 'utf8')) : null;
    }, { what: 'the next turn' });
    const results = ask.input.context.qa_results;
    assert.equal(results.length, 2);
    assert.equal(results[0].status, 'failed');
    assert.equal(results[1].technical_review, ok.detail.qa_result.technical_review);
    assert.equal(ask.input.context.goal_lead.qa_results.length, 2);
    assert.ok(ask.input.conversation.transcript.some((t) => t.turn === 'qa_result'), 'the transcript carries the result lines');
    assert.ok(ask.input.context.run_health, 'run_health is in the context');
  } finally {
    await s.stop();
  }
});

test('a Technical row due by recovery is closed as skipped once the workflow has a goal', () => {
  const tmp = makeTempDir('pulse-qa-recovery-');
  const ws = makeWorkspace(tmp.dir, { wf: { pulse: { enabled: true }, schedules: [{ id: 'daily', cron: '0 9 * * *', enabled: true }] } });
  const runner = 'cat > /dev/null; if [ "$PULSE_TURN" = qa_fix ]; then echo "fix run broke" >&2; exit 1; fi; echo reviewed';
  const cli = (args) => pulse([...args, '--workspace', ws, '--workflow', 'wf', '--now', NOW]);
  const first = cli(['pass', '--json', '--runner', runner]);
  assert.equal(first.status, 1, 'the pass failed in Technical');
  const tech = first.json.worklist.find((r) => r.module === 'technical');
  assert.equal(tech.state, 'failed');
  assert.match(tech.detail, /fix run broke/);
  // The workflow gets a goal: Technical is still due by recovery, and is closed.
  writeFileSync(join(ws, 'Workflow', 'wf', 'workflow.json'), JSON.stringify({ ...SUBSTACK_CONFIG }));
  const second = cli(['pass', '--json']);
  assert.equal(second.status, 0, second.stderr);
  assert.deepEqual(second.json.pass.steps.map((s) => s.step), ['gate', 'goal_work', 'finalize']);
  const closed = second.json.worklist.find((r) => r.module === 'technical');
  assert.equal(closed.due, true);
  assert.equal(closed.state, 'skipped');
  assert.match(closed.reason, /due by recovery/);
  assert.match(closed.detail, /skipped by code after Gate/);
  assert.match(second.json.pass.steps[0].detail, /technical closed as skipped/);
  // The recovery is cleared: the next pass records Technical not due.
  const third = cli(['pass', '--json']);
  assert.equal(third.status, 0, third.stderr);
  const again = third.json.worklist.find((r) => r.module === 'technical');
  assert.equal(again.due, false);
  assert.equal(again.state, 'not_due');
});
