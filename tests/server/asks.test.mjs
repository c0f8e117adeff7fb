// ask_pulse from the platform (POST /api/workflows/<wf>/ask) with a real
// runner: bounded threads that end with decision lines, the 20-an-hour cap,
// round 7 refused, threads that survive a server restart, and thread ids of
// another workflow, another caller or none refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync, readdirSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { request, startServer, makeTempDir, makeWorkspace, setNow, waitFor, pulse, mcp, SUBSTACK_CONFIG, HEALTHY_CONFIG, runnerWritableDir } from './helpers.mjs';

// Pulse's runner: asks a fact in round 1 (and whenever told QUESTION),
// decides from round 2 on; HANG never answers. It keeps every ask turn's
// stdin in the output folder.
const RUNNER = `
import { readFileSync, writeFileSync } from 'node:fs';
const input = JSON.parse(readFileSync(0, 'utf8'));
const ask = input.context.ask;
if (!ask) { console.log('not an ask turn'); process.exit(0); }
writeFileSync(process.argv[2] + '/' + ask.thread_id + '-r' + ask.round + '.json', JSON.stringify(input));
const message = input.context.message || '';
if (message.includes('HANG')) await new Promise((r) => setTimeout(r, 600000));
if (ask.round === 1 && !message.includes('DECIDE') || message.includes('QUESTION')) {
  console.log('Subscribers have not been measured by a run for 20 days.\\n' +
    'question: Does growth_summary already write subscribers.json?');
} else {
  console.log('Then nothing measures them.\\n' +
    '- **decision:** add a record_subscribers step to growth_funnel because no run measures subscribers\\n' +
    'owner_needed: no (a plan change within pulse.autonomy.change=auto)');
}
`;

const NOW = '2026-10-07T12:00:00Z';
const AUTO = { ...SUBSTACK_CONFIG, access: [{ account: 'ana', role: 'owner' }, { account: 'bo', role: 'reader' }],
  pulse: { enabled: true, autonomy: { run: 'ask', outward: 'ask', change: 'auto', answer: 'recommend' } } };
const CHATS = [
  { session_id: 'b-1', kind: 'builder', account: 'ana', last_active_at: '2026-10-07T11:50:00Z', live: true, busy: false },
  { session_id: 'b-9', kind: 'builder', account: 'bo', last_active_at: '2026-10-07T11:00:00Z', live: true, busy: false },
];

function setup(prefix) {
  const tmp = makeTempDir(prefix);
  const ws = makeWorkspace(tmp.dir, { substack: AUTO, digest: HEALTHY_CONFIG });
  writeFileSync(join(ws, 'Workflow', 'substack', 'chats.json'), JSON.stringify(CHATS));
  writeFileSync(join(tmp.dir, 'runner.mjs'), RUNNER);
  const out = join(tmp.dir, 'out');
  runnerWritableDir(out);
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, NOW);
  const args = ['--no-tick', '--now-file', nowFile, '--runner', `node ${join(tmp.dir, 'runner.mjs')} ${out}`,
    '--runner-timeout', '60', '--sandbox-allow-read', join(tmp.dir, 'runner.mjs'), '--sandbox-allow-write', out];
  return { tmp, ws, out, nowFile, args };
}

async function ask(s, body, wf = 'substack') {
  return request(`${s.url}api/workflows/${wf}/ask`, { method: 'POST', token: s.ownerToken, body: { wait_seconds: 60, ...body } });
}

test('TestPulseThreadAsksBackThenDecidesWithoutTheOwner', async () => {
  const { tmp, ws, out, args } = setup('pulse-asks-thread-');
  const s = await startServer(ws, args);
  try {
    const r1 = await ask(s, { caller: 'builder', session: 'b-1', account: 'ana', message: 'Should growth_funnel record subscribers?' });
    assert.equal(r1.status, 200, r1.text);
    const a1 = r1.body;
    assert.equal(a1.status, 'answered');
    assert.equal(a1.round, 1);
    assert.equal(a1.max_rounds, 6);
    assert.equal(a1.thread_open, true);
    assert.equal(a1.decision, null);
    assert.equal(a1.owner_needed, null);
    assert.equal(a1.pulse_question, 'Does growth_summary already write subscribers.json?');
    assert.equal(a1.owner_relay, true, 'the owner\'s own attended Builder chat is the owner\'s voice');
    assert.match(a1.next, new RegExp(`answer Pulse's question in thread ${a1.thread_id} \\(round 2 of at most 6\\)`));

    // Round 1's turn was told its round, the thread and the decision lines.
    const stdin1 = JSON.parse(readFileSync(join(out, `${a1.thread_id}-r1.json`), 'utf8'));
    assert.match(stdin1.charter, new RegExp(`round 1 of at most 6 of thread ${a1.thread_id}`));
    assert.match(stdin1.charter, /owner_needed: yes\|no \(why\)/);
    assert.match(stdin1.charter, /owner relay/);

    const r2 = await ask(s, { caller: 'builder', session: 'b-1', account: 'ana', thread_id: a1.thread_id,
      message: 'No: growth_summary writes nothing about subscribers.' });
    assert.equal(r2.status, 200, r2.text);
    const a2 = r2.body;
    assert.equal(a2.round, 2);
    assert.equal(a2.thread_id, a1.thread_id);
    assert.equal(a2.decision, 'add a record_subscribers step to growth_funnel because no run measures subscribers');
    assert.equal(a2.owner_needed, false);
    assert.equal(a2.owner_needed_why, 'a plan change within pulse.autonomy.change=auto');
    assert.equal(a2.thread_open, false);
    assert.equal(a2.pulse_question, null);
    assert.match(a2.next, /^act without asking the owner again/);
    assert.match(a2.next, /"Pulse recommended add a record_subscribers step to growth_funnel because no run measures subscribers; done\."/);
    const stdin2 = JSON.parse(readFileSync(join(out, `${a1.thread_id}-r2.json`), 'utf8'));
    assert.match(stdin2.charter, new RegExp(`round 2 of at most 6 of thread ${a1.thread_id}`));

    // No decision request was made: the Builder acts on Pulse's decision.
    const decisions = await request(`${s.url}api/workflows/substack/decisions?status=all`);
    assert.equal(decisions.body.decisions.length, 0);

    // Both rounds are turns of Pulse's conversation, with the thread and round.
    const conv = (await request(`${s.url}api/workflows/substack/conversation`)).body;
    const rounds = conv.turns.filter((t) => t.thread_id === a1.thread_id);
    assert.deepEqual(rounds.map((t) => [t.round, t.turn, t.caller, t.account, t.state]),
      [[1, 'ask_pulse', 'owner', 'ana', 'completed'], [2, 'ask_pulse', 'owner', 'ana', 'completed']]);
    assert.match(rounds[1].reply, /owner_needed: no/);
    assert.match(rounds[0].text, new RegExp(`round 1 of at most 6 of thread ${a1.thread_id}`));

    // The thread closed with its decision: a third round is refused.
    const r3 = await ask(s, { caller: 'builder', session: 'b-1', account: 'ana', thread_id: a1.thread_id, message: 'and?' });
    assert.equal(r3.status, 403, r3.text);
    assert.match(r3.body.error, /is closed \(decided: add a record_subscribers step/);

    // A reader's Builder chat only asks for a recommendation.
    const reader = await ask(s, { caller: 'builder', session: 'b-9', account: 'bo', message: 'DECIDE: which route?' });
    assert.equal(reader.body.owner_relay, false);
    const readerTurn = (await request(`${s.url}api/workflows/substack/conversation`)).body.turns
      .find((t) => t.thread_id === reader.body.thread_id);
    assert.equal(readerTurn.caller, 'builder');
    assert.match(readerTurn.text, /only asks for your recommendation/);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

function openSession(ws, flags) {
  const r = pulse(['session', 'open', '--workspace', ws, '--workflow', 'substack', ...flags, '--now', NOW]);
  assert.equal(r.status, 0, r.stderr);
  return r.json;
}

test('a step calls the ask_pulse tool from its platform session: a thread in Pulse\'s conversation, over the tool route and MCP', async () => {
  const { tmp, ws, out, args } = setup('pulse-asks-tool-');
  const s = await startServer(ws, args);
  try {
    const step = openSession(ws, ['--turn', 'workflow_step']);
    const tool = (body) => request(`${s.url}s/${step.session}/tools/custom/ask_pulse`, { method: 'POST', token: step.token, body });
    const r1 = await tool({ message: 'Should growth_funnel record subscribers?' });
    assert.equal(r1.status, 200, r1.text);
    assert.equal(r1.body.executed, true);
    assert.notEqual(r1.body.status, 'carry_out_on_platform');
    const a1 = r1.body.result;
    assert.equal(a1.status, 'answered');
    assert.equal(a1.caller, 'step');
    assert.equal(a1.session, step.session);
    assert.equal(a1.owner_relay, false, 'a step only asks for a recommendation');
    assert.equal(a1.round, 1);
    assert.equal(a1.thread_open, true);
    assert.equal(a1.pulse_question, 'Does growth_summary already write subscribers.json?');
    const stdin1 = JSON.parse(readFileSync(join(out, `${a1.thread_id}-r1.json`), 'utf8'));
    assert.match(stdin1.charter, /a workflow step/);
    assert.match(stdin1.charter, /only asks for your recommendation/);

    // Round 2 over MCP, in the same thread: Pulse decides and the thread closes.
    const r2 = await mcp(s.url, step.token, 'tools/call',
      { name: 'ask_pulse', arguments: { thread_id: a1.thread_id, message: 'No: it writes nothing about subscribers.' } });
    assert.equal(r2.status, 200, r2.text);
    assert.equal(r2.body.result.isError, false, r2.text);
    const a2 = r2.body.result.structuredContent.result;
    assert.equal(a2.round, 2);
    assert.equal(a2.thread_id, a1.thread_id);
    assert.equal(a2.owner_needed, false);
    assert.equal(a2.thread_open, false);
    assert.match(a2.next, /^act without asking the owner again/);
    const listed = await mcp(s.url, step.token, 'tools/list', {});
    const def = listed.body.result.tools.find((t) => t.name === 'ask_pulse');
    assert.match(def.description, /round of a thread of at most 6/);
    assert.deepEqual(Object.keys(def.inputSchema.properties).sort(), ['call_id', 'message', 'thread_id', 'wait_seconds']);

    const conv = (await request(`${s.url}api/workflows/substack/conversation`)).body;
    assert.deepEqual(conv.turns.filter((t) => t.thread_id === a1.thread_id).map((t) => [t.round, t.turn, t.caller, t.state]),
      [[1, 'ask_pulse', 'step', 'completed'], [2, 'ask_pulse', 'step', 'completed']]);

    // A closed thread is refused over the tool route too; bad input names the key.
    const closed = await tool({ thread_id: a1.thread_id, message: 'and?' });
    assert.equal(closed.status, 403, closed.text);
    assert.match(closed.body.error, /is closed \(decided: /);
    const empty = await tool({ wait_seconds: 500, message: 'x' });
    assert.equal(empty.status, 400, empty.text);
    assert.match(empty.body.error, /wait_seconds/);

    // A step one of Pulse's turns started is that turn: Pulse never asks itself.
    const work = openSession(ws, ['--turn', 'goal_work']);
    const child = openSession(ws, ['--parent', work.session, '--turn', 'workflow_step']);
    const self = await request(`${s.url}s/${child.session}/tools/custom/ask_pulse`, { method: 'POST', token: child.token, body: { message: 'x' } });
    assert.equal(self.status, 403, self.text);
    assert.match(self.body.error, /is a step of a goal_work turn/);
    // And Pulse's own turn is refused by the guard, as before.
    const own = await request(`${s.url}s/${work.session}/tools/custom/ask_pulse`, { method: 'POST', token: work.token, body: { message: 'x' } });
    assert.equal(own.status, 403, own.text);
    assert.equal(own.body.rule, 'no_self_ask');
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('round 7 is refused; thread ids of another workflow, another caller or none are refused', async () => {
  const { tmp, ws, args } = setup('pulse-asks-rounds-');
  const s = await startServer(ws, args);
  try {
    let thread;
    for (let round = 1; round <= 6; round++) {
      const r = await ask(s, { caller: 'step', session: 'step-7', message: `QUESTION ${round}`, ...(thread ? { thread_id: thread } : {}) });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.round, round);
      assert.equal(r.body.owner_relay, false);
      assert.equal(r.body.thread_open, round < 6, `round ${round}`);
      thread = r.body.thread_id;
    }
    const last = await ask(s, { caller: 'step', session: 'step-7', message: 'QUESTION 7', thread_id: thread });
    assert.equal(last.status, 403, last.text);
    assert.match(last.body.error, /round 7 refused; a thread has at most 6 rounds/);

    const unknown = await ask(s, { caller: 'step', session: 'step-7', message: 'x', thread_id: thread.replace(/-\d+$/, '-999') });
    assert.equal(unknown.status, 404, unknown.text);
    assert.match(unknown.body.error, /no such thread/);
    const other = await ask(s, { caller: 'step', session: 'step-7', message: 'x', thread_id: thread }, 'digest');
    assert.equal(other.status, 403, other.text);
    assert.match(other.body.error, /belongs to another workflow/);

    const open = await ask(s, { caller: 'run', session: 'r-1', message: 'QUESTION' });
    const stranger = await ask(s, { caller: 'run', session: 'r-2', message: 'x', thread_id: open.body.thread_id });
    assert.equal(stranger.status, 403, stranger.text);
    assert.match(stranger.body.error, /opened by another caller/);
    const peek = await ask(s, { caller: 'run', session: 'r-2', call_id: open.body.call_id });
    assert.equal(peek.status, 403);

    // Bad input: one line naming the key; Pulse never asks itself.
    const bad = await ask(s, { caller: 'pulse', session: 'x', message: 'm' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /"caller"/);
    const self = await ask(s, { caller: 'step', session: 'schedule-goallead--abc-g1', message: 'm' });
    assert.equal(self.status, 403);
    assert.match(self.body.error, /never asks itself/);
    const noToken = await request(`${s.url}api/workflows/substack/ask`, { method: 'POST', body: { caller: 'step', session: 's', message: 'm' } });
    assert.equal(noToken.status, 401);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('20 asks an hour per workflow: the 21st waits for the next slot and answers once it frees', async () => {
  const { tmp, ws, nowFile, args } = setup('pulse-asks-cap-');
  const s = await startServer(ws, args);
  try {
    for (let i = 0; i < 20; i++) {
      const r = await ask(s, { caller: 'bot', session: `slack-${i}`, message: `DECIDE ${i}` });
      assert.equal(r.body.status, 'answered', r.text);
    }
    const over = await ask(s, { caller: 'bot', session: 'slack-x', message: 'DECIDE late' });
    assert.equal(over.status, 200, over.text);
    assert.equal(over.body.status, 'queued');
    assert.equal(over.body.slot_at, '2026-10-07T13:00:00Z');
    assert.match(over.body.next, /starts at 2026-10-07T13:00:00Z/);
    // Another workflow has its own hour.
    const digest = await ask(s, { caller: 'bot', session: 'slack-d', message: 'DECIDE' }, 'digest');
    assert.equal(digest.body.status, 'answered');
    const early = await ask(s, { caller: 'bot', session: 'slack-x', call_id: over.body.call_id });
    assert.equal(early.body.status, 'queued');
    setNow(nowFile, '2026-10-07T13:00:01Z');
    const later = await ask(s, { caller: 'bot', session: 'slack-x', call_id: over.body.call_id });
    assert.equal(later.body.status, 'answered', later.text);
    assert.equal(later.body.owner_needed, false);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('a queued ask starts by itself when its slot frees: the tick picks it up, also after a restart', async () => {
  const { tmp, ws, nowFile, args } = setup('pulse-asks-queue-');
  let s = await startServer(ws, args);
  let queued;
  try {
    for (let i = 0; i < 20; i++) {
      const r = await ask(s, { caller: 'bot', session: `slack-${i}`, message: `DECIDE ${i}` });
      assert.equal(r.body.status, 'answered', r.text);
    }
    const over = await ask(s, { caller: 'step', session: 'step-late', message: 'DECIDE late' });
    assert.equal(over.body.status, 'queued', over.text);
    queued = over.body.call_id;
  } finally {
    await s.stop();
  }
  // The slot frees at 13:00; a server that ticks starts the ask with nobody
  // asking again, and its answer is stored for the caller's next read.
  setNow(nowFile, '2026-10-07T13:00:01Z');
  s = await startServer(ws, [...args.filter((a) => a !== '--no-tick'), '--tick-seconds', '0.2']);
  try {
    const done = await waitFor(async () => {
      const list = (await request(`${s.url}api/workflows/substack/call/ask.list`, { method: 'POST', body: { direction: 'ask_pulse' } })).body;
      const rec = list.result.asks.find((a) => a.call_id === queued);
      return rec && rec.status !== 'queued' && rec.status !== 'running' ? rec : null;
    }, { timeoutMs: 60000, what: `ask ${queued} answered by the tick` });
    assert.equal(done.status, 'answered', JSON.stringify(done));
    assert.equal(done.owner_needed, false);
    assert.equal(done.started_at, '2026-10-07T13:00:01Z');
    const read = await ask(s, { caller: 'step', session: 'step-late', call_id: queued });
    assert.equal(read.body.status, 'answered');
    assert.match(read.body.next, /^act without asking the owner again/);
    const turns = (await request(`${s.url}api/workflows/substack/conversation`)).body.turns;
    assert.equal(turns.filter((t) => t.thread_id === done.thread_id).length, 1, 'one turn for the queued round');
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('a thread survives a server restart, also with a round cut off by it', async () => {
  const { tmp, ws, out, args } = setup('pulse-asks-restart-');
  let s = await startServer(ws, args);
  let thread;
  let hung;
  try {
    const r1 = await ask(s, { caller: 'builder', session: 'b-1', account: 'ana', message: 'Why is the goal unmeasured?' });
    thread = r1.body.thread_id;
    assert.equal(r1.body.thread_open, true);
    // Round 2 never answers within its wait: the caller gets the call id.
    const r2 = await ask(s, { caller: 'builder', session: 'b-1', account: 'ana', thread_id: thread, message: 'HANG', wait_seconds: 1 });
    assert.equal(r2.body.status, 'running', r2.text);
    assert.match(r2.body.next, new RegExp(`ask again with call_id ${r2.body.call_id}`));
    hung = r2.body.call_id;
  } finally {
    await s.stop();
  }
  s = await startServer(ws, args);
  try {
    const back = await ask(s, { caller: 'builder', session: 'b-1', call_id: hung });
    assert.equal(back.body.status, 'interrupted', back.text);
    assert.equal(back.body.thread_open, true);
    const r3 = await ask(s, { caller: 'builder', session: 'b-1', account: 'ana', thread_id: thread, message: 'It writes nothing.' });
    assert.equal(r3.status, 200, r3.text);
    assert.equal(r3.body.round, 3);
    assert.equal(r3.body.owner_needed, false);
    assert.equal(r3.body.thread_open, false);
    assert.ok(readdirSync(out).includes(`${thread}-r3.json`));
    const conv = (await request(`${s.url}api/workflows/substack/conversation`)).body;
    assert.deepEqual(conv.turns.filter((t) => t.thread_id === thread).map((t) => [t.round, t.state]),
      [[1, 'completed'], [2, 'interrupted'], [3, 'completed']]);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
