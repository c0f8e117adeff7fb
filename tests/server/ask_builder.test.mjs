// ask_builder with a real --builder command: a question and a fix run in the
// owner's Builder chat with the right hold, a fix held at change=ask becomes
// a decision whose Accept sends it there, a failed-run turn cannot send a
// fix, a failing, silent or hanging command ends the ask with its status,
// a busy chat is refused, the goal check sees the plan change and the
// Builder's answers, and an ask_pulse turn a Builder chat started cannot
// ask a Builder chat back. Without a Builder command or chat, an accepted
// decision's apply message waits in the outbox, marked undelivered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync, mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { request, startServer, makeTempDir, makeWorkspace, pulse, setNow, waitFor, SUBSTACK_CONFIG, runnerWritableDir } from './helpers.mjs';

// The Builder chat's turn: keeps what it was given (stdin, environment) and
// what its guarded session let it do, then answers on stdout.
const BUILDER = `
import { readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
const input = JSON.parse(readFileSync(0, 'utf8'));
// A child that detaches (setsid) and would outlive the turn if it could.
const left = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
left.unref();
const name = input.call_id || ('apply-' + input.decision_id);
const call = async (tool, args) => {
  const r = await fetch(process.env.PULSE_TOOL_URL + tool, { method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.MCP_API_TOKEN },
    body: JSON.stringify(args) });
  return (await r.json()).allowed === true;
};
const tried = { update_step: await call('update_step', { step_id: 'growth_summary', prompt: 'also record subscribers' }),
  execute_step: await call('execute_step', { step_id: 'growth_summary' }) };
writeFileSync(process.argv[2] + '/' + name + '.json', JSON.stringify({ input, tried, env: process.env, uid: process.getuid(), left: left.pid }));
if (input.message.includes('FAIL')) { console.error('the chat crashed'); process.exit(3); }
if (input.message.includes('SILENT')) process.exit(0);
if (input.message.includes('HANG')) await new Promise((r) => setTimeout(r, 600000));
console.log(input.kind === 'question' ? 'growth_funnel was paused on 30 Sep because the API quota ran out.'
  : 'Done: growth_funnel records subscribers now.');
`;

// Pulse's runner for ask_pulse turns: tries ask_builder from inside the turn.
const PULSE_RUNNER = `
import { readFileSync } from 'node:fs';
const input = JSON.parse(readFileSync(0, 'utf8'));
if (!input.context.ask) { console.log('not an ask'); process.exit(0); }
const r = await fetch(process.env.PULSE_TOOL_URL + 'ask_builder', { method: 'POST',
  headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.MCP_API_TOKEN },
  body: JSON.stringify({ kind: 'question', message: 'Why was growth_funnel paused?' }) });
const body = await r.json();
console.log('ask_builder: ' + r.status + ' ' + (r.status === 200 ? body.result.status : body.rule) + '\\n' +
  'decision: wait for the Builder because it knows\\nowner_needed: no (a question only)');
`;

const NOW = '2026-10-07T12:00:00Z';
const levels = (change) => ({ ...SUBSTACK_CONFIG, access: [{ account: 'ana', role: 'owner' }],
  pulse: { enabled: true, autonomy: { run: 'ask', outward: 'ask', change, answer: 'recommend' } } });
const CHATS = [
  { session_id: 'b-old', kind: 'builder', account: 'ana', last_active_at: '2026-10-01T10:00:00Z', live: false, busy: false },
  { session_id: 'b-1', kind: 'builder', account: 'ana', last_active_at: '2026-10-07T11:50:00Z', live: true, busy: false },
  { session_id: 'run-1', kind: 'run', account: 'ana', last_active_at: '2026-10-07T11:59:00Z', live: true, busy: false },
];

function setup(prefix, { builder = true, runner = false } = {}) {
  const tmp = makeTempDir(prefix);
  const ws = makeWorkspace(tmp.dir, { substack: levels('ask') });
  const wf = join(ws, 'Workflow', 'substack');
  writeFileSync(join(wf, 'chats.json'), JSON.stringify(CHATS));
  mkdirSync(join(wf, 'planning'), { recursive: true });
  writeFileSync(join(wf, 'planning', 'changelog.jsonl'), `${JSON.stringify({ at: '2026-10-07T10:00:00Z', tool: 'update_step',
    reason: 'shorter summary', steps: ['growth_summary'], who: 'ana', session: 'b-1' })}\n`);
  writeFileSync(join(tmp.dir, 'builder.mjs'), BUILDER);
  writeFileSync(join(tmp.dir, 'pulse-runner.mjs'), PULSE_RUNNER);
  const out = join(tmp.dir, 'out');
  runnerWritableDir(out);
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, NOW);
  const args = ['--now-file', nowFile, '--sandbox-allow-read', join(tmp.dir, 'builder.mjs'),
    '--sandbox-allow-read', join(tmp.dir, 'pulse-runner.mjs'), '--sandbox-allow-write', out];
  if (builder) args.push('--builder', `node ${join(tmp.dir, 'builder.mjs')} ${out}`);
  if (runner) args.push('--runner', `node ${join(tmp.dir, 'pulse-runner.mjs')}`, '--runner-timeout', '60');
  return { tmp, ws, wf, out, args };
}

function session(ws, turn) {
  const r = pulse(['session', 'open', '--workspace', ws, '--workflow', 'substack', '--turn', turn, '--now', NOW]);
  assert.equal(r.status, 0, r.stderr);
  return r.json;
}

async function tool(s, sess, name, args) {
  return request(`${s.url}s/${sess.session}/tools/custom/${name}`, { method: 'POST', token: sess.token, body: args });
}

// A process that exists and is not a zombie.
function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

const seen = (out, name) => JSON.parse(readFileSync(join(out, `${name}.json`), 'utf8'));

test('TestPulseAskBuilderHonoursChangeLevelAndCheckSeesPlanChanges', async () => {
  const { tmp, ws, wf, out, args } = setup('pulse-ask-builder-');
  const s = await startServer(ws, ['--no-tick', ...args]);
  try {
    // A fix at change=ask: not sent; one decision with "Make this fix".
    const fix = { kind: 'fix', message: 'Add a record_subscribers step to growth_funnel', title: 'Measure subscribers',
      evidence: 'no reading by a run for 20 days', why: 'the goal is unmeasured' };
    const held = await tool(s, session(ws, 'goal_work'), 'ask_builder', fix);
    assert.equal(held.status, 403, held.text);
    assert.equal(held.body.rule, 'change_level');
    assert.equal(held.body.held_as_decision, true);
    const id = held.body.decision_id;
    const pending = (await request(`${s.url}api/workflows/substack/decisions?status=pending`)).body.decisions;
    assert.equal(pending.length, 1);
    assert.equal(pending[0].recommendation.option, 'Make this fix');
    assert.ok(!existsSync(join(out, `${held.body.result.call_id}.json`)), 'nothing ran in the Builder chat');
    // The owner's Accept sends it to the owner's latest live Builder chat.
    const accepted = await request(`${s.url}api/workflows/substack/decisions/${id}/answer`, { method: 'POST',
      token: s.ownerToken, body: { accept: true } });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.apply.delivered, true, accepted.text);
    assert.equal(accepted.body.apply.builder_session_id, 'b-1');
    const applied = seen(out, `apply-${id}`);
    assert.equal(applied.input.kind, 'apply');
    // The Builder command runs as a runner does: as the runner user, and
    // nothing it starts outlives its turn.
    if (process.getuid() === 0) assert.equal(applied.uid, 65534);
    assert.ok(!alive(applied.left), `the Builder command's detached child ${applied.left} outlived its turn`);
    assert.equal(applied.input.session_id, 'b-1');
    assert.deepEqual(applied.input.held, ['run', 'outward']);
    assert.match(applied.input.message, /Add a record_subscribers step to growth_funnel/);
    // Pulse's guarded session holds Change at the workflow's level (ask):
    // the owner's accepted change is the Builder chat's own to make.
    assert.deepEqual(applied.tried, { update_step: false, execute_step: false });

    // At change=auto the fix runs in the Builder chat, held to Change only.
    writeFileSync(join(wf, 'workflow.json'), JSON.stringify(levels('auto')));
    const sent = await tool(s, session(ws, 'goal_work'), 'ask_builder', { ...fix, message: 'Raise the word limit of growth_summary' });
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.body.result.status, 'answered');
    assert.equal(sent.body.result.answer, 'Done: growth_funnel records subscribers now.');
    const fixTurn = seen(out, sent.body.result.call_id);
    assert.equal(fixTurn.input.turn, 'builder_fix');
    assert.deepEqual(fixTurn.tried, { update_step: true, execute_step: false });
    assert.notEqual(fixTurn.env.MCP_API_TOKEN, s.ownerToken);
    assert.ok(!Object.values(fixTurn.env).includes(s.ownerToken), 'the Builder command never sees the owner token');

    // A question at change=ask runs with Run, Outward and Change held.
    writeFileSync(join(wf, 'workflow.json'), JSON.stringify(levels('ask')));
    const q = await tool(s, session(ws, 'goal_check'), 'ask_builder', { kind: 'question', message: 'Why was growth_funnel paused?' });
    assert.equal(q.status, 200, q.text);
    assert.equal(q.body.result.status, 'answered');
    assert.equal(q.body.result.builder_session_id, 'b-1');
    assert.equal(q.body.result.in_memory, true);
    const qTurn = seen(out, q.body.result.call_id);
    assert.equal(qTurn.input.turn, 'builder_question');
    assert.deepEqual(qTurn.input.held, ['run', 'outward', 'change']);
    assert.deepEqual(qTurn.tried, { update_step: false, execute_step: false });
    const memory = readFileSync(join(wf, 'memory', 'goal.md'), 'utf8');
    assert.match(memory, /builder answer/i);
    assert.match(memory, /API quota ran out/);
    // The Pulse chat logs each ask and what came of it.
    const notes = (await request(`${s.url}api/workflows/substack/conversation`)).body.turns.filter((t) => t.turn === 'ask_builder');
    assert.deepEqual(notes.map((t) => t.caller), notes.map(() => 'platform'));
    const qNote = notes.find((t) => t.text.includes(q.body.result.call_id));
    assert.match(qNote.text, /^Pulse asked Builder chat b-1 \(question, ask-\d+\): "Why was growth_funnel paused\?" — answered: ".*API quota ran out/);
    assert.ok(notes.some((t) => t.text.includes(sent.body.result.call_id) && / — answered: "Done: /.test(t.text)), 'the fix too');
    assert.ok(notes.some((t) => /\(fix, ask-\d+\): .* — decision/.test(t.text)), 'and the fix held as a decision');

    // From a failed-run turn a fix is refused outright.
    const failedRun = await tool(s, session(ws, 'run_failed'), 'ask_builder', fix);
    assert.equal(failedRun.status, 403);
    assert.equal(failedRun.body.rule, 'ask_builder_fix_run_failed');
    assert.equal(failedRun.body.held_as_decision, undefined);

    // The goal check's context has the plan change and the Builder's answers.
    const facts = (await request(`${s.url}api/workflows/substack/goal-status`)).body.facts;
    assert.equal(facts.plan_changes.length, 1);
    assert.equal(facts.plan_changes[0].session, 'b-1');
    const asked = facts.builder_asks.find((a) => a.call_id === q.body.result.call_id);
    assert.equal(asked.status, 'answered');
    assert.equal(asked.kind, 'question');
    assert.match(asked.answer, /API quota ran out/);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('a failing, silent or hanging Builder command ends the ask with its status; a busy chat is refused', async () => {
  const { tmp, ws, wf, args } = setup('pulse-ask-builder-faults-');
  const s = await startServer(ws, ['--no-tick', ...args]);
  try {
    const sess = session(ws, 'goal_check');
    const failed = await tool(s, sess, 'ask_builder', { kind: 'question', message: 'FAIL please' });
    assert.equal(failed.body.result.status, 'builder_failed', failed.text);
    assert.match(failed.body.result.error, /exited with status 3: the chat crashed/);
    const silent = await tool(s, sess, 'ask_builder', { kind: 'question', message: 'SILENT please' });
    assert.equal(silent.body.result.status, 'builder_failed');
    assert.match(silent.body.result.error, /printed nothing/);
    const hung = await tool(s, sess, 'ask_builder', { kind: 'question', message: 'HANG please', wait_seconds: 1 });
    assert.equal(hung.body.result.status, 'timeout', hung.text);
    // Each is stored, and the server goes on.
    const facts = (await request(`${s.url}api/workflows/substack/facts`)).body;
    assert.deepEqual(facts.builder_asks.map((a) => a.status).sort(), ['builder_failed', 'builder_failed', 'timeout']);

    writeFileSync(join(wf, 'chats.json'), JSON.stringify([{ ...CHATS[1], busy: true, last_active_at: '2026-10-07T11:55:00Z' }]));
    const busy = await tool(s, sess, 'ask_builder', { kind: 'question', message: 'Anything new?' });
    assert.equal(busy.status, 403, busy.text);
    assert.match(busy.body.error, /b-1 is busy with another turn; ask later/);
    const named = await tool(s, sess, 'ask_builder', { kind: 'question', message: 'x', builder_session_id: 'run-1' });
    assert.equal(named.status, 403);
    assert.match(named.body.error, /not one of the owner's Builder chats/);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('no ping-pong: an ask_pulse turn a Builder chat started cannot ask a Builder chat; a step\'s can', async () => {
  const { tmp, ws, args } = setup('pulse-ask-builder-chain-', { runner: true });
  const s = await startServer(ws, ['--no-tick', ...args]);
  try {
    const fromChat = await request(`${s.url}api/workflows/substack/ask`, { method: 'POST', token: s.ownerToken,
      body: { caller: 'builder', session: 'b-1', account: 'ana', message: 'Why is the goal unmeasured?' } });
    assert.equal(fromChat.body.status, 'answered', fromChat.text);
    assert.match(fromChat.body.answer, /^ask_builder: 403 no_ping_pong/);
    const fromStep = await request(`${s.url}api/workflows/substack/ask`, { method: 'POST', token: s.ownerToken,
      body: { caller: 'step', session: 'step-3', message: 'Why is the goal unmeasured?' } });
    assert.match(fromStep.body.answer, /^ask_builder: 200 answered/, fromStep.text);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('Accept with no Builder command: the apply message waits in the outbox, undelivered, until one can carry it', async () => {
  const { tmp, ws, out, args } = setup('pulse-apply-outbox-', { builder: false });
  const withBuilder = [...args, '--builder', `node ${join(tmp.dir, 'builder.mjs')} ${out}`];
  const cli = (a) => pulse([...a, '--workspace', ws, '--workflow', 'substack', '--now', NOW]);
  const made = cli(['decision', 'create', '--question', 'Resume the paused schedules?', '--option', 'Resume', '--option', 'Not now']);
  assert.equal(made.status, 0, made.stderr);
  const id = Number(made.stdout.trim().match(/\d+/)[0]);
  assert.equal(cli(['decision', 'recommend', '--id', String(id), '--option', 'Resume', '--why', 'no run for 7 days',
    '--confidence', 'high']).status, 0);
  let s = await startServer(ws, ['--no-tick', ...args]);
  let outboxId;
  try {
    const r = await request(`${s.url}api/workflows/substack/decisions/${id}/answer`, { method: 'POST', token: s.ownerToken,
      body: { accept: true } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.apply.sent, true);
    assert.equal(r.body.apply.delivered, false);
    assert.match(r.body.apply.reason, /^undelivered: no Builder command/);
    outboxId = r.body.apply.outbox_id;
    const box = (await request(`${s.url}api/workflows/substack/outbox`)).body;
    const m = box.messages.find((x) => x.id === outboxId);
    assert.equal(m.kind, 'apply_message');
    assert.equal(m.delivered_at, '');
    assert.match(m.delivery_error, /no Builder command/);
    assert.match(m.text, /The owner answered decision \d+ \(Resume the paused schedules\?\): Resume/);
  } finally {
    await s.stop();
  }
  // A server that has a Builder command delivers it on its tick.
  s = await startServer(ws, ['--tick-seconds', '0.2', ...withBuilder]);
  try {
    await waitFor(async () => {
      const box = (await request(`${s.url}api/workflows/substack/outbox`)).body;
      return box.messages.find((x) => x.id === outboxId && x.delivered_at !== '');
    }, { what: 'the apply message delivered', timeoutMs: 30000 });
    assert.equal(seen(out, `apply-${id}`).input.session_id, 'b-1');
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
