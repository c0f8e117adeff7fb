// Pulse's conversation on the real server with a real runner process: one
// session across the daily goal check, the owner's message and a pass's Goal
// Work (each turn handed the session to resume and the transcript so far);
// the owner relay carrying its rules; a pass's order and summary; the daily
// check beside a pass; runners that crash, hang or print garbage; two
// passes racing for one conversation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync, readFileSync, readdirSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import {
  request, startServer, setNow, waitFor, pulse, SUBSTACK_CONFIG, PULSE_BIN, runnerWritableDir, substackWorkspace,
} from './helpers.mjs';

// Saves each turn's stdin as <out>/<n>-<kind>.json and answers; on request
// it crashes, hangs, prints bytes that are not text, asks for a fast pass,
// or marks the time it works (to show two turns never overlap).
const RUNNER = `
import { readFileSync, writeFileSync, readdirSync, existsSync, rmSync } from 'node:fs';
const out = process.argv[2];
const input = JSON.parse(readFileSync(0, 'utf8'));
const kind = input.turn.kind;
const n = readdirSync(out).filter((f) => f.endsWith('.json')).length + 1;
writeFileSync(out + '/' + String(n).padStart(2, '0') + '-' + kind + '.json', JSON.stringify(input));
const message = String(input.turn.message || '');
if (message.includes('crash')) { process.stderr.write('runner blew up mid-turn'); process.exit(3); }
if (message.includes('hang')) { await new Promise((r) => setTimeout(r, 60000)); }
if (message.includes('garbage')) { process.stdout.write(Buffer.from([0x68, 0x69, 0xff, 0xfe, 0x00, 0x80])); process.exit(0); }
if (message.includes('fast') || existsSync(out + '/ask-fast')) {
  rmSync(out + '/ask-fast', { force: true });
  const r = await fetch(process.env.PULSE_TOOL_URL + 'record_pulse_fast_request', { method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.MCP_API_TOKEN },
    body: JSON.stringify({ why: 'a run failed; look again soon' }) });
  if (r.status !== 200) { console.log('fast request refused: ' + r.status); process.exit(4); }
}
const busy = out + '/busy';
const overlap = existsSync(busy) ? ' OVERLAP' : '';
writeFileSync(busy, kind);
if (kind === 'goal_work' && existsSync(out + '/slow')) await new Promise((r) => setTimeout(r, 1500));
rmSync(busy, { force: true });
const seen = (input.conversation && input.conversation.transcript || []).length;
console.log('reply to ' + kind + ' after ' + seen + ' earlier entries' + overlap);
`;

function setup(prefix, config = SUBSTACK_CONFIG) {
  const { tmp, ws, nowFile } = substackWorkspace(prefix, config);
  const runner = join(tmp.dir, 'runner.mjs');
  writeFileSync(runner, RUNNER);
  const out = join(tmp.dir, 'out');
  runnerWritableDir(out);
  const runnerCmd = `node ${runner} ${out}`;
  const sandbox = ['--sandbox-allow-read', runner, '--sandbox-allow-write', out];
  return { tmp, ws, out, nowFile, runnerCmd, sandbox };
}

const stdins = (out) => readdirSync(out).filter((f) => f.endsWith('.json')).sort()
  .map((f) => JSON.parse(readFileSync(join(out, f), 'utf8')));

async function conversation(s, generation) {
  const r = await request(`${s.url}api/workflows/substack/conversation${generation ? `?generation=${generation}` : ''}`);
  assert.equal(r.status, 200, r.text);
  return r.body;
}

// The conversation once the turn of `runId` has ended.
async function turnEnded(s, runId) {
  return waitFor(async () => {
    const c = await conversation(s);
    const t = c.turns.find((x) => x.pulse_run_id === runId);
    return t && t.state !== 'running' && !c.running ? { c, t } : null;
  }, { what: `conversation turn of ${runId}`, timeoutMs: 60000 });
}

async function say(s, text) {
  const r = await request(`${s.url}api/workflows/substack/messages`, { method: 'POST', token: s.ownerToken, body: { text } });
  assert.equal(r.status, 202, r.text);
  return r.body.turn;
}

const passCli = (e, extra = []) => ['pass', '--workspace', e.ws, '--workflow', 'substack', '--now', '2026-10-07T12:00:00Z',
  '--runner', e.runnerCmd, ...e.sandbox, '--json', ...extra];

test('the goal check continues its conversation and answers the owner (TestGoalLeadCheckContinuesItsConversationAndAnswersAsks)', async () => {
  const e = setup('pulse-conv-continue-');
  const s = await startServer(e.ws, ['--no-tick', '--now-file', e.nowFile, '--runner', e.runnerCmd, '--runner-timeout', '60', ...e.sandbox]);
  try {
    const session = `schedule-goallead--${createHash('sha256').update('substack').digest('hex').slice(0, 16)}-g1`;
    // 1. The daily goal check.
    const check = await request(`${s.url}api/workflows/substack/goal-check`, { method: 'POST', token: s.ownerToken, body: {} });
    assert.equal(check.status, 202, check.text);
    assert.equal(check.body.turn.session, session);
    const first = await turnEnded(s, check.body.turn.pulse_run_id);
    assert.equal(first.t.turn, 'goal_check');
    assert.equal(first.t.state, 'completed');
    assert.equal(first.t.reply, 'reply to goal_check after 1 earlier entries');
    // 2. The owner's message: an owner relay turn in the same session.
    const words = 'Always write the welcome email in a friendly tone. This month, focus on referrals.';
    const msg = await say(s, words);
    assert.equal(msg.session, session);
    const second = await turnEnded(s, msg.pulse_run_id);
    assert.equal(second.t.turn, 'ask_pulse');
    assert.equal(second.t.caller, 'owner');
    assert.ok(second.t.text.endsWith(`The owner wrote:\n${words}`), second.t.text);
    // The relay turn carries the rules: lasting direction to goal memory as
    // an owner answer, time-boxed direction as a proposed focus area, a goal
    // change as a proposed soul.md edit Pulse never applies.
    assert.match(second.t.text, /Lasting direction[^.]*goal memory[^.]*owner answer/);
    assert.match(second.t.text, /Time-boxed direction \(.*?\) becomes a proposed focus area/);
    assert.match(second.t.text, /soul\.md edit[^.]*never edit soul\.md yourself/);
    // 3. A pass's Goal Work, from the command line, in the same conversation.
    const pass = pulse(passCli(e), { timeout: 60000 });
    assert.equal(pass.status, 0, pass.stderr + pass.stdout);
    assert.equal(pass.json.session_id, session);
    const c = await conversation(s);
    assert.equal(c.session_id, session);
    assert.equal(c.generation, 1);
    assert.deepEqual(c.turns.map((t) => t.turn), ['charter', 'goal_check', 'ask_pulse', 'goal_work']);
    // The owner asked for the check and wrote the message; the pass is the platform's schedule.
    assert.deepEqual(c.turns.map((t) => t.caller), ['platform', 'owner', 'owner', 'tick']);

    // Each runner was told to resume the one session, with the transcript so far.
    const seen = stdins(e.out);
    assert.deepEqual(seen.map((x) => x.turn.kind), ['goal_check', 'ask_pulse', 'goal_work']);
    for (const [i, x] of seen.entries()) {
      assert.equal(x.turn.session, session);
      assert.equal(x.turn.restored_conversation_session_id, session);
      assert.equal(x.conversation.generation, 1);
      assert.equal(x.conversation.transcript.length, i + 1, `turn ${i + 1} replays the generation before it`);
      assert.equal(x.conversation.transcript[0].turn, 'charter');
    }
    assert.equal(seen[1].conversation.transcript[1].reply, 'reply to goal_check after 1 earlier entries');
    assert.equal(seen[2].conversation.transcript[2].text.endsWith(words), true);
    assert.match(seen[1].charter, /record_pulse_goal_memory\(action="add", section "owner", source "owner answer"\)/);
    assert.match(seen[1].charter, /record_pulse_focus_area\(action="propose"/);
    assert.equal(seen[1].context.message, words);
    assert.match(seen[2].charter, /Goal Work/);
    assert.match(seen[2].charter, /Step 0 is the goal check/);
    // The `pulse conversation show` view is the route's.
    const shown = pulse(['conversation', 'show', '--workspace', e.ws, '--workflow', 'substack', '--json']);
    assert.equal(shown.status, 0, shown.stderr);
    assert.deepEqual(shown.json.turns, c.turns);
  } finally {
    await s.stop();
    e.tmp.cleanup();
  }
});

test('a pass runs Gate, Goal Work in the conversation, Finalize; its summary leads with the goal status', async () => {
  const e = setup('pulse-conv-pass-');
  try {
    const r = pulse(passCli(e), { timeout: 60000 });
    assert.equal(r.status, 0, r.stderr + r.stdout);
    assert.deepEqual(r.json.pass.steps.map((x) => x.step), ['gate', 'goal_work', 'finalize']);
    assert.deepEqual(r.json.pass.steps.map((x) => x.state), ['completed', 'completed', 'completed']);
    assert.match(r.json.pass.steps[0].detail, /no Architecture or Technical turn/);
    assert.equal(r.json.pass.steps[1].turn_id, r.json.turns[0].id);
    assert.equal(r.json.turns[0].turn, 'goal_work');
    assert.ok(r.json.pass.summary.startsWith('Substack Pulse: not measured — subscribers 412 of 1000'), r.json.pass.summary);
    assert.equal(r.json.pass.goal_status, 'not_measured');
    assert.match(r.json.pass.steps[2].detail, /^summary sent \(outbox \d+\)$/);
    assert.equal(r.json.pass.kind, 'full');
    assert.equal(r.json.pass.trigger, 'cli');
  } finally {
    e.tmp.cleanup();
  }
});

test('the daily check never runs beside a pass, keeps the pass schedule and leaves fast requests to the pass', async () => {
  const config = { ...SUBSTACK_CONFIG, pulse: { ...SUBSTACK_CONFIG.pulse, full_pass: { cron: '0 6 * * *' } } };
  const e = setup('pulse-conv-daily-', config);
  // Before 06:00 a pass ran already today (from the command line).
  setNow(e.nowFile, '2026-10-07T05:00:00Z');
  const early = pulse([...passCli(e).filter((a) => a !== '2026-10-07T12:00:00Z' && a !== '--now'), '--now', '2026-10-06T07:00:00Z'], { timeout: 60000 });
  assert.equal(early.status, 0, early.stderr + early.stdout);
  const s = await startServer(e.ws, ['--no-tick', '--now-file', e.nowFile, '--runner', e.runnerCmd, '--runner-timeout', '60', ...e.sandbox]);
  try {
    // The daily goal check at 05:00, whose runner asks for a fast pass.
    writeFileSync(join(e.out, 'ask-fast'), '');
    const check = await request(`${s.url}api/workflows/substack/goal-check`, { method: 'POST', token: s.ownerToken, body: {} });
    assert.equal(check.status, 202, check.text);
    await turnEnded(s, check.body.turn.pulse_run_id);
    const fast = await request(`${s.url}api/workflows/substack/requests?kind=fast`);
    assert.equal(fast.body.requests.length, 1, JSON.stringify(fast.body));
    assert.equal(fast.body.requests[0].status, 'pending', 'the daily check does not consume the fast request');
  } finally {
    await s.stop();
  }
  // The tick: the fast request starts an earlier pass, slow on purpose; the
  // owner's goal check asked meanwhile waits for it.
  writeFileSync(join(e.out, 'slow'), '');
  const t = await startServer(e.ws, ['--tick-seconds', '0.2', '--now-file', e.nowFile, '--runner', e.runnerCmd, '--runner-timeout', '60', ...e.sandbox]);
  try {
    const taken = await waitFor(async () => {
      const r = (await request(`${t.url}api/workflows/substack/requests?kind=fast`)).body.requests;
      return r.length && r[0].status === 'taken' ? r[0] : null;
    }, { what: 'the fast request taken by a pass' });
    assert.match(taken.taken_by, /^pass \d+$/);
    const asked = await request(`${t.url}api/workflows/substack/goal-check`, { method: 'POST', token: t.ownerToken, body: {} });
    assert.equal(asked.status, 202);
    const { c } = await turnEnded(t, asked.body.turn.pulse_run_id);
    const kinds = c.turns.map((x) => x.turn);
    assert.deepEqual(kinds, ['charter', 'goal_work', 'goal_check', 'goal_work', 'goal_check']);
    for (const x of c.turns.slice(1)) assert.doesNotMatch(x.reply, /OVERLAP/, `${x.turn} ran beside another turn`);
    assert.equal(c.turns.filter((x) => x.state !== 'completed').length, 0, JSON.stringify(c.turns));
    // At 05:00 the cron (06:00) has not fired since the early pass: one fast
    // pass only, and the daily checks did not make a full pass due.
    await new Promise((r) => setTimeout(r, 800));
    const again = await conversation(t);
    assert.equal(again.turns.filter((x) => x.turn === 'goal_work').length, 2);
    // At 06:00 the cron fires: the full pass is due whatever the checks did.
    setNow(e.nowFile, '2026-10-07T06:00:00Z');
    await waitFor(async () => (await conversation(t)).turns.filter((x) => x.turn === 'goal_work' && x.state === 'completed').length === 3,
      { what: 'the 06:00 full pass', timeoutMs: 30000 });
  } finally {
    await t.stop();
    e.tmp.cleanup();
  }
});

test('a runner that crashes, hangs or prints garbage fails its turn with the reason; the conversation goes on', async () => {
  const e = setup('pulse-conv-faults-');
  const s = await startServer(e.ws, ['--no-tick', '--now-file', e.nowFile, '--runner', e.runnerCmd, '--runner-timeout', '2', ...e.sandbox]);
  try {
    const ok1 = await turnEnded(s, (await say(s, 'hello')).pulse_run_id);
    assert.equal(ok1.t.state, 'completed');
    const crash = await turnEnded(s, (await say(s, 'please crash')).pulse_run_id);
    assert.equal(crash.t.state, 'failed');
    assert.match(crash.t.error, /runner exited with status 3: runner blew up mid-turn/);
    const hang = await turnEnded(s, (await say(s, 'please hang')).pulse_run_id);
    assert.equal(hang.t.state, 'failed');
    assert.match(hang.t.error, /timed out after 2 s/);
    const garbage = await turnEnded(s, (await say(s, 'print garbage')).pulse_run_id);
    assert.equal(garbage.t.state, 'failed');
    assert.match(garbage.t.error, /not UTF-8 text \(6 bytes\)/);
    // The next turn goes on, and the conversation kept every turn.
    const ok2 = await turnEnded(s, (await say(s, 'and now?')).pulse_run_id);
    assert.equal(ok2.t.state, 'completed');
    assert.equal(ok2.t.reply, 'reply to ask_pulse after 5 earlier entries');
    assert.deepEqual(ok2.c.turns.map((t) => t.state), ['completed', 'completed', 'failed', 'failed', 'failed', 'completed']);
    assert.equal(ok2.c.turns[1].reply, ok1.t.reply, 'an earlier turn is unchanged');
    assert.equal(ok2.c.running, false);
  } finally {
    await s.stop();
    e.tmp.cleanup();
  }
});

test('two passes racing for one conversation never start two turns', async () => {
  const e = setup('pulse-conv-race-');
  writeFileSync(join(e.out, 'slow'), '');
  try {
    const run = () => new Promise((resolve) => {
      const p = spawn(PULSE_BIN, passCli(e), { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d) => { stdout += d; });
      p.stderr.on('data', (d) => { stderr += d; });
      p.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
    const [a, b] = await Promise.all([run(), run()]);
    const shown = pulse(['conversation', 'show', '--workspace', e.ws, '--workflow', 'substack', '--json']);
    const work = shown.json.turns.filter((t) => t.turn === 'goal_work');
    assert.equal(work.length, 1, JSON.stringify(shown.json.turns));
    assert.equal(work[0].state, 'completed');
    assert.deepEqual([a.code, b.code].sort(), [0, 1], a.stderr + b.stderr);
    const loser = a.code === 1 ? a : b;
    assert.match(loser.stdout + loser.stderr, /one turn at a time/);
    assert.doesNotMatch(work[0].reply, /OVERLAP/);
  } finally {
    e.tmp.cleanup();
  }
});

test('every pass recommends on every pending decision, also the owner\'s, and the rules runner says what it cannot judge', async () => {
  // Schedules running (nothing paused): Pulse never offers to resume them.
  const config = { ...SUBSTACK_CONFIG, schedules: [{ id: 'daily', cron: '0 9 * * *', enabled: true }] };
  const e = setup('pulse-conv-recommend-', config);
  const common = ['--workspace', e.ws, '--workflow', 'substack'];
  try {
    const made = pulse(['decision', 'create', ...common, '--question', 'Switch the newsletter to weekly?',
      '--option', 'Weekly', '--option', 'Keep it daily', '--raised-by', 'owner', '--json', '--now', '2026-10-06T09:00:00Z']);
    assert.equal(made.status, 0, made.stderr);
    const mine = made.json.id;
    const free = pulse(['decision', 'create', ...common, '--question', 'What should the welcome email say?', '--raised-by', 'owner',
      '--json', '--now', '2026-10-06T09:05:00Z']);
    assert.equal(free.status, 0, free.stderr);
    // The built-in rules runner's pass (no --runner).
    const r = pulse(['pass', ...common, '--now', '2026-10-07T12:00:00Z', '--json'], { timeout: 60000 });
    assert.equal(r.status, 0, r.stderr + r.stdout);
    const list = pulse(['decision', 'list', ...common, '--status', 'pending', '--json']).json.decisions;
    const byId = new Map(list.map((d) => [d.id, d]));
    const owners = byId.get(mine);
    assert.equal(owners.raised_by, 'owner');
    assert.ok(owners.recommendation, 'the owner-created decision got a recommendation');
    assert.equal(owners.recommendation.option, 'Weekly');
    assert.match(owners.recommendation.why, /cannot judge this question/);
    assert.equal(owners.recommendation.confidence, 'low');
    const freeRec = byId.get(free.json.id).recommendation;
    assert.match(freeRec.text, /cannot judge this question/);
    // Pulse's own decision for the goal: options without a resume, since nothing is paused.
    const own = list.find((d) => d.raised_by === 'pulse');
    assert.ok(own, JSON.stringify(list));
    assert.ok(!own.options.includes('Resume the paused schedules'), own.options.join(' | '));
    assert.match(r.json.turns[0].reply, /^Substack Pulse: not measured/);
    // A second pass the same day keeps today's recommendations (no second one each).
    const again = pulse(['pass', ...common, '--now', '2026-10-07T13:00:00Z', '--json'], { timeout: 60000 });
    assert.equal(again.status, 0, again.stderr);
    const after = pulse(['decision', 'list', ...common, '--status', 'pending', '--json']).json.decisions;
    assert.equal(after.find((d) => d.id === mine).recommendation.id, owners.recommendation.id);
  } finally {
    e.tmp.cleanup();
  }
});
