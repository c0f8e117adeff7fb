// The main job's demo workspace (scripts/demo_workspace.mjs, what run.sh
// serves): served by the real `pulse serve`, the first tick shows Substack
// in the Substack case — not measured, its alarms, Pulse's one decision
// and summary — and the healthy workflow on track.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../node/helpers.mjs';
import { request, startServer, makeTempDir, waitFor, PULSE_BIN } from './helpers.mjs';

test('the demo workspace shows the seed\'s Substack situation and a healthy workflow at once', async () => {
  const tmp = makeTempDir('pulse-demo-');
  const ws = join(tmp.dir, 'demo');
  const made = spawnSync('node', [join(ROOT, 'scripts', 'demo_workspace.mjs'), ws, '--pulse', PULSE_BIN], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  const again = spawnSync('node', [join(ROOT, 'scripts', 'demo_workspace.mjs'), ws, '--pulse', PULSE_BIN], { encoding: 'utf8' });
  assert.equal(again.status, 2, 'an existing workspace is never overwritten');
  const args = ['--tick-seconds', '0.2'];
  const nowFile = join(ws, '.pulse', 'demo-now');
  if (existsSync(nowFile)) args.push('--now-file', nowFile);
  const s = await startServer(ws, args);
  try {
    // The demo runs the rules runner unless PULSE_MODEL names a model; its
    // prices.json is there for when one does (docs/models.md).
    assert.equal((await request(`${s.url}api/health`)).body.turns.thinks_with, 'rules');
    const prices = JSON.parse(readFileSync(join(ws, '.pulse', 'prices.json'), 'utf8'));
    assert.deepEqual(prices['anthropic:scripted-demo'], { input_per_mtok: 3, output_per_mtok: 15 });
    const list = (await request(`${s.url}api/workflows`)).body.workflows;
    assert.deepEqual(list.map((w) => [w.name, w.status]),
      [['digest', 'on_track'], ['inbox', 'on_track'], ['substack', 'not_measured']]);
    // Inbox: the context facts from its outside files, through the real server.
    const facts = (await request(`${s.url}api/workflows/inbox/facts`)).body;
    assert.equal(facts.needs_reauth, true);
    assert.deepEqual([...new Set(facts.login_hints.map((h) => h.pattern))].sort(),
      ['http_401', 'invalid_grant', 'mcp_connection', 'reauthenticate']);
    assert.equal(facts.error_rate.spike, true);
    assert.deepEqual(facts.cost_spikes.map((c) => [c.usd, c.route, c.goal_route]), [[3.2, 'reply', true]]);
    assert.deepEqual(facts.plan_changes.map((c) => c.touches_goal), [true, false]);
    assert.equal(facts.sources.find((f) => f.file === 'planning/changelog.jsonl').skipped, 1);
    const inboxStatus = (await request(`${s.url}api/workflows/inbox/goal-status`)).body;
    assert.equal(inboxStatus.needs_reauth, true);
    const { workflow: _name, ...factsOnly } = facts;
    assert.deepEqual(inboxStatus.facts, factsOnly);
    const sub = list[2].goal_status;
    const kinds = sub.alarms.map((a) => a.kind);
    assert.ok(kinds.includes('not_measured'), kinds.join());
    assert.ok(kinds.includes('goal_work_without_reading'), kinds.join());
    assert.match(sub.alarms.find((a) => a.kind === 'not_measured').message, /^not measured by a workflow run for 20 days \(last reading \d+ \w{3}\)$/);
    assert.equal(sub.outside_run_readings[0].source, 'builder_chat');

    // The first tick: Pulse's goal check on both; one decision and one summary for Substack.
    const done = await waitFor(async () => {
      const rows = (await request(`${s.url}api/workflows/substack/agent-log`)).body.rows.filter((r) => r.kind === 'goal_check');
      return rows.length && rows[0].status === 'completed' ? rows[0] : null;
    }, { what: 'the demo goal check' });
    assert.match(done.result, /Substack Pulse: not measured/);
    const decisions = (await request(`${s.url}api/workflows/substack/decisions?status=pending`)).body.decisions;
    assert.equal(decisions.length, 1);
    assert.equal(decisions[0].raised_by, 'pulse');
    const outbox = (await request(`${s.url}api/workflows/substack/outbox`)).body.messages;
    assert.deepEqual(outbox.filter((m) => m.kind !== 'run_summary').map((m) => m.kind), ['pulse_reply', 'pulse_reply', 'pulse_summary']);
    // Substack's Pulse conversation: the owner's two messages, then the tick's goal check in the same session.
    const convo = (await request(`${s.url}api/workflows/substack/conversation`)).body;
    // (After the goal check the next ticks add the safety net's run_failed
    // turn and the QA results, checked below.)
    assert.deepEqual(convo.turns.slice(0, 6).map((t) => [t.turn, t.caller, t.state]), [['charter', 'platform', 'completed'],
      ['ask_pulse', 'owner', 'completed'], ['ask_pulse', 'owner', 'completed'],
      // then the asks from the owner's Builder chat and a step (thread rounds), then the check.
      ['ask_pulse', 'owner', 'completed'], ['ask_pulse', 'step', 'completed'], ['goal_check', 'tick', 'completed']]);
    assert.match(convo.session_id, /^schedule-goallead--[0-9a-f]{16}-g1$/);
    assert.match(convo.turns[1].reply, /What I cannot judge/);
    assert.equal(convo.turns[2].account, 'ana');
    // The summary's Slack delivery: the demo's Web API address is a closed
    // port, so the card shows the failure with its reason and the retry
    // time; the owner's Talk replies stay in the tab.
    const slackState = await waitFor(async () => {
      const m = (await request(`${s.url}api/workflows/substack/outbox`)).body.messages.find((x) => x.kind === 'pulse_summary');
      return m.delivery === 'retrying' ? m.deliveries[0] : null;
    }, { what: 'the demo summary tried on Slack' });
    assert.equal(slackState.target, 'slack:#substack-growth');
    assert.match(slackState.error, /^Slack unreachable: /);
    assert.ok(slackState.next_attempt_at > slackState.last_attempt_at);
    assert.equal((await request(`${s.url}api/workflows/substack/outbox`)).body.messages.find((m) => m.kind === 'pulse_reply').delivery, 'not_sent');
    // The failed growth run reached the channels as a run summary (notify after the run).
    assert.ok(outbox.some((m) => m.kind === 'run_summary' && m.payload.status === 'failed'), JSON.stringify(outbox.map((m) => m.kind)));
    // Workflow Review: Digest's plan reviewed clean; Substack's renamed step left a break that stops growth_funnel.
    const digReview = (await request(`${s.url}api/workflows/digest/workflow-review`)).body;
    assert.equal(digReview.workflow_review.current.outcome, 'clean');
    assert.deepEqual(digReview.after_run.schedules.map((x) => [x.id, x.after_run.notify]), [['daily', true], ['weekend', false]]);
    const subReview = (await request(`${s.url}api/workflows/substack/workflow-review`)).body;
    assert.equal(subReview.workflow_review.current.outcome, 'broken');
    assert.equal(subReview.workflow_review.current.broken[0].step, 'growth_funnel');
    // Digest's year before Pulse (schedule-runs.json, 670 runs) comes in a
    // batch a pass; its goal check runs once the history is in, still on track.
    // Its own runs: every day's 07:00 run of the last ten days and today's,
    // and last Saturday's weekend run (so no schedule of it is late).
    const digCheck = await waitFor(async () => (await request(`${s.url}api/workflows/digest/agent-log`)).body.rows
      .find((r) => r.kind === 'goal_check' && r.status === 'completed'), { what: 'the digest goal check' });
    assert.match(digCheck.result, /^Digest Pulse: on track/);
    assert.equal((await request(`${s.url}api/workflows/digest/decisions?status=all`)).body.decisions.length, 0);
    // Digest's conversation holds a turn a model thought (recorded through
    // the real agent loop against a scripted model server when the demo was
    // made): its tokens on the agent-log row, the owner's direction in goal
    // memory as the owner's line, its cost priced into the spend facts.
    const thought = (await request(`${s.url}api/workflows/digest/agent-log`)).body.rows.filter((r) => r.tokens);
    assert.deepEqual(thought.map((r) => [r.status, r.tokens]), [['completed', { in: 36900, out: 270 }]]);
    assert.match(thought[0].result, /^Kept in goal memory as your direction: five items from now on\./);
    assert.match((await request(`${s.url}api/workflows/digest/memory`)).body.text,
      /\[owner answer\] Keep the digest at five items after the focus on a shorter digest ends/);
    const digTalk = (await request(`${s.url}api/workflows/digest/conversation`)).body.turns.find((t) => t.turn === 'ask_pulse');
    assert.deepEqual([digTalk.caller, digTalk.reply], ['owner', thought[0].result]);
    const digSpend = (await request(`${s.url}api/workflows/digest/facts`)).body.spend;
    assert.ok(Math.abs(digSpend.last_7_days_usd - (36900 * 3 + 270 * 15) / 1e6) < 1e-6, JSON.stringify(digSpend));
    const digRuns = (await request(`${s.url}api/workflows/digest/runs-by-route`)).body.routes.reduce((n, r) => n + r.runs, 0);
    assert.equal(digRuns, 670 + 12);
    assert.equal((await request(`${s.url}api/health`)).body.tick.importing, 0);
    // Focus areas: Substack's own (tracked) and Pulse's proposal; Digest's closed one with its lesson in memory.
    const subFocus = (await request(`${s.url}api/workflows/substack/focus-areas`)).body.focus_areas;
    assert.deepEqual(subFocus.map((a) => a.status), ['active', 'proposed']);
    assert.equal(subFocus[0].tracking.length, 1);
    const digFocus = (await request(`${s.url}api/workflows/digest/focus-areas`)).body.focus_areas;
    assert.deepEqual(digFocus.map((a) => a.status), ['active', 'done']);
    assert.match((await request(`${s.url}api/workflows/digest/memory`)).body.text, /five items read better than ten/);
    // Substack's Pulse owns QA: the run interrupted this morning wakes it once
    // (it asks for QA: the goal's route), and the fix runs for that request
    // and the owner's report back into its conversation.
    const woken = await waitFor(async () => {
      const seen = (await request(`${s.url}api/workflows/substack/failed-runs`)).body.failed_runs;
      return seen.length && seen[0].outcome ? seen : null;
    }, { what: 'the run_failed turn' });
    assert.deepEqual(woken.map((r) => r.run_id), ['r-0121']);
    assert.match(woken[0].outcome, /QA requested/);
    const qa = await waitFor(async () => {
      const list = (await request(`${s.url}api/workflows/substack/requests?kind=qa`)).body.requests;
      return list.length === 2 && list.every((r) => r.status === 'done') ? list : null;
    }, { what: 'both QA fix runs', timeoutMs: 40000 });
    assert.match(qa[0].what, /r-0121/);
    assert.match(qa[1].what, /subscriber export step fails with 401/);
    const conv = (await request(`${s.url}api/workflows/substack/conversation`)).body;
    assert.equal(conv.turns.filter((t) => t.turn === 'run_failed').length, 1);
    assert.equal(conv.turns.filter((t) => t.turn === 'qa_result').length, 2);
    const health = (await request(`${s.url}api/workflows/substack/facts`)).body.run_health;
    assert.ok(Array.isArray(health.schedules) && health.schedules.length === 2, JSON.stringify(health.schedules));
    // Asks: Substack's Builder chat (the owner's voice) and a step asked Pulse,
    // each a thread round in its conversation; Inbox's fix waits as "Make this fix".
    const turns = (await request(`${s.url}api/workflows/substack/conversation`)).body.turns;
    const asked = turns.filter((t) => t.turn === 'ask_pulse' && t.thread_id);
    assert.deepEqual(asked.map((t) => [t.caller, t.round]), [['owner', 1], ['step', 1]]);
    assert.ok(asked.every((t) => /owner_needed: yes/.test(t.reply)));
    const fix = (await request(`${s.url}api/workflows/inbox/decisions?status=pending`)).body.decisions;
    assert.deepEqual(fix.map((d) => d.recommendation.option), ['Make this fix']);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('run.sh passes PULSE_MODEL, PULSE_MODEL_URL and PULSE_MODEL_KEY_ENV through to pulse serve, and says what thinks', () => {
  const tmp = makeTempDir('pulse-run-dry-');
  try {
    const env = { ...process.env, PULSE_RUN_DRY: '1', PULSE_WORKSPACE: tmp.dir, PULSE_MODEL: 'openai:qwen2.5:7b',
      PULSE_MODEL_URL: 'http://127.0.0.1:11434/v1', PULSE_MODEL_KEY_ENV: 'LOCAL_KEY' };
    const r = spawnSync('bash', [join(ROOT, 'scripts', 'run.sh')], { encoding: 'utf8', env });
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.ok(lines.includes('run: Pulse thinks with openai:qwen2.5:7b at http://127.0.0.1:11434/v1'), r.stdout);
    const args = lines.slice(lines.indexOf('build/native/pulse') + 1);
    for (const [flag, value] of [['--model', 'openai:qwen2.5:7b'], ['--model-url', 'http://127.0.0.1:11434/v1'],
      ['--model-key-env', 'LOCAL_KEY'], ['--workspace', tmp.dir]]) {
      assert.equal(args[args.indexOf(flag) + 1], value, `${flag} in ${args.join(' ')}`);
    }
    const plain = spawnSync('bash', [join(ROOT, 'scripts', 'run.sh')], { encoding: 'utf8',
      env: { ...process.env, PULSE_RUN_DRY: '1', PULSE_WORKSPACE: tmp.dir, PULSE_MODEL: '' } });
    assert.equal(plain.status, 0, plain.stderr);
    assert.ok(!plain.stdout.includes('--model'), plain.stdout);
    assert.match(plain.stdout, /built-in rules runner; PULSE_MODEL=openai:NAME/);
    // The real Claude Code / Codex as Pulse's mind and as the Builder chat.
    const presets = spawnSync('bash', [join(ROOT, 'scripts', 'run.sh')], { encoding: 'utf8',
      env: { ...process.env, PULSE_RUN_DRY: '1', PULSE_WORKSPACE: tmp.dir, PULSE_MODEL: '', PULSE_RUNNER: 'claude', PULSE_BUILDER: 'codex' } });
    assert.equal(presets.status, 0, presets.stderr);
    const presetArgs = presets.stdout.trim().split('\n');
    assert.equal(presetArgs[presetArgs.indexOf('--runner') + 1], 'claude', presets.stdout);
    assert.equal(presetArgs[presetArgs.indexOf('--builder') + 1], 'codex', presets.stdout);
    assert.match(presets.stdout, /run: Pulse thinks with the real claude program, Pulse's MCP its only tools/);
  } finally {
    tmp.cleanup();
  }
});
