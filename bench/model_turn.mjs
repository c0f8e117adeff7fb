// bench/model_turn.mjs: what Pulse's own agent loop costs, with the scripted
// model server (tests/server/model_server.mjs) answering at once on loopback,
// so every millisecond measured is Pulse's (the server's own handling time
// is measured and taken out).
//
// 1. Overhead per tool round trip: one `pulse serve` turn (Talk to Pulse) in
//    which the model calls a tool ROUNDS times, then answers; against the
//    same turn with no tool call. (turn time - model server time - the
//    no-tool turn's) / ROUNDS is what each round trip costs Pulse: building
//    and sending the growing request, reading the answer, the guard, the
//    tool itself, its record. Two tools: get_step (a platform tool: the guard
//    decides and records, answered carry_out_on_platform) and get_pulse_state
//    (goal_status: a goal check with its facts). Target: <= 20 ms.
// 2. /api/health under load: WORKFLOWS workflows each get a model turn of
//    STEPS tool round trips, all at once (--max-turns WORKFLOWS), while
//    CLIENTS loopback clients read /api/health in a loop; p50/p99 of those
//    reads, against the same clients with no turn running. Target: p99 <= 50 ms.
//
//   node bench/model_turn.mjs [--rounds 32] [--workflows 50] [--steps 4] [--clients 4]
import http from 'node:http';
import { join } from 'node:path';
import { buildSubstack, makeTempDir, request, setNow, startServer, waitFor } from '../tests/server/helpers.mjs';
import { makeManyWorkflows } from '../tests/server/many_workflows.mjs';
import { startModelServer } from '../tests/server/model_server.mjs';
import { numberArg } from './common.mjs';

const ROUNDS = numberArg('--rounds', 32);
const WORKFLOWS = numberArg('--workflows', 50);
const STEPS = numberArg('--steps', 4);
const CLIENTS = numberArg('--clients', 4);
const NOW = '2026-10-07T12:00:00Z';

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const f1 = (x) => x.toFixed(1);

// The answer for a request: a tool call until the turn has made `rounds`
// round trips (counted from the tool results in its last run of messages),
// then the reply.
function answering(tool, args, rounds) {
  return (record) => {
    const msgs = record.body.messages;
    let done = 0;
    for (let i = msgs.length - 1; i >= 0 && msgs[i].role !== 'user'; i--) if (msgs[i].role === 'assistant') done++;
    return done < rounds ? { tools: [{ name: tool, arguments: args }], usage: { input: 10, output: 5 } }
      : { text: `done after ${done} round trips`, usage: { input: 10, output: 5 } };
  };
}

async function say(s, wf, text) {
  const r = await request(`${s.url}api/workflows/${wf}/messages`, { method: 'POST', token: s.ownerToken, body: { text } });
  if (r.status !== 202) throw new Error(`${wf}: ${r.status} ${r.text}`);
  return r.body.turn.pulse_run_id;
}

async function finished(s, wf, runId) {
  return waitFor(async () => {
    const rows = (await request(`${s.url}api/workflows/${wf}/agent-log?run_id=${runId}`)).body.rows;
    return rows.length === 1 && rows[0].status !== 'running' ? rows[0] : null;
  }, { what: `${wf} ${runId}`, timeoutMs: 600000, intervalMs: 20 });
}

// One turn's wall time, less what the model server spent on its requests.
async function timedTurn(s, m, rounds, tool, args) {
  m.push(...Array.from({ length: rounds + 1 }, () => answering(tool, args, rounds)));
  const first = m.requests.length;
  const t0 = performance.now();
  const runId = await say(s, 'substack', `bench ${tool} x${rounds}`);
  const row = await finished(s, 'substack', runId);
  const wall = performance.now() - t0;
  if (row.status !== 'completed') throw new Error(`the turn failed: ${row.error}`);
  const mine = m.requests.slice(first);
  const modelMs = mine.reduce((a, r) => a + ((r.answeredAt || r.receivedAt) - r.receivedAt), 0);
  const bytes = mine.reduce((a, r) => a + r.raw.length, 0);
  return { wall, pulse: wall - modelMs, modelMs, requests: mine.length, bytes };
}

async function overhead() {
  const tmp = makeTempDir('pulse-bench-model-');
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws);
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, NOW);
  const m = await startModelServer();
  const s = await startServer(ws, ['--no-tick', '--now-file', nowFile, '--model', 'openai:bench', '--model-url', m.openaiUrl,
    '--model-max-steps', String(ROUNDS + 1)]);
  try {
    console.log(`# 1. Pulse's own overhead per tool round trip (${ROUNDS} round trips in one turn, the model answering at once)`);
    console.log('| tool | turn (ms) | model server (ms) | no-tool turn (ms) | Pulse per round trip (ms) | request body at the end (KB) | target |');
    console.log('|---|---|---|---|---|---|---|');
    for (const [tool, args] of [['get_step', { step_id: 'growth_funnel' }], ['get_pulse_state', { view: 'goal_status' }]]) {
      await timedTurn(s, m, 2, tool, args);  // warm: the workflow opened, its schema checked
      const base = [];
      for (let i = 0; i < 3; i++) base.push((await timedTurn(s, m, 0, tool, args)).pulse);
      const baseMs = base.sort((a, b) => a - b)[1];
      const t = await timedTurn(s, m, ROUNDS, tool, args);
      const per = (t.pulse - baseMs) / ROUNDS;
      const last = m.requests[m.requests.length - 1].raw.length;
      console.log(`| ${tool} | ${f1(t.wall)} | ${f1(t.modelMs)} | ${f1(baseMs)} | ${f1(per)} | ${f1(last / 1024)} | ${per <= 20 ? 'met' : 'NOT met'} (<= 20 ms) |`);
    }
  } finally {
    await s.stop();
    await m.close();
    tmp.cleanup();
  }
}

// CLIENTS loops reading /api/health until `until()`; their latencies in ms.
async function healthLoad(url, until) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const lat = [];
  const one = () => new Promise((resolve, reject) => {
    const t0 = performance.now();
    http.get(`${url}api/health`, { agent }, (res) => {
      res.resume();
      res.on('end', () => { lat.push(performance.now() - t0); resolve(); });
    }).on('error', reject);
  });
  await Promise.all(Array.from({ length: CLIENTS }, async () => { while (!until()) await one(); }));
  agent.destroy();
  return lat;
}

async function healthUnderTurns() {
  const tmp = makeTempDir('pulse-bench-model-health-');
  const ws = join(tmp.dir, 'ws');
  const names = makeManyWorkflows(ws, WORKFLOWS, { runs: 200 });
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-07T12:00:00Z');
  const m = await startModelServer({ fallback: answering('get_pulse_state', { view: 'goal_status' }, STEPS) });
  const s = await startServer(ws, ['--no-tick', '--now-file', nowFile, '--model', 'openai:bench', '--model-url', m.openaiUrl,
    '--max-turns', String(Math.min(64, WORKFLOWS))]);
  try {
    let stop = performance.now() + 3000;
    const idle = await healthLoad(s.url, () => performance.now() > stop);
    const t0 = performance.now();
    let done = false;
    const loaded = healthLoad(s.url, () => done);
    const runs = [];
    for (const wf of names) runs.push([wf, await say(s, wf, 'bench')]);
    const rows = await Promise.all(runs.map(([wf, id]) => finished(s, wf, id)));
    done = true;
    const busy = await loaded;
    const wall = performance.now() - t0;
    const failed = rows.filter((r) => r.status !== 'completed');
    console.log(`\n# 2. /api/health with ${names.length} model turns running across workflows (${STEPS} tool round trips each, ${CLIENTS} clients)`);
    console.log('| while | reads | p50 (ms) | p99 (ms) | max (ms) | target |');
    console.log('|---|---|---|---|---|---|');
    console.log(`| no turn running | ${idle.length} | ${f1(pct(idle, 50))} | ${f1(pct(idle, 99))} | ${f1(Math.max(...idle))} | |`);
    console.log(`| ${names.length} turns (${f1(wall / 1000)} s, ${m.requests.length} model requests, ${failed.length} failed) | ${busy.length} | ${f1(pct(busy, 50))} | ${f1(pct(busy, 99))} | ${f1(Math.max(...busy))} | ${pct(busy, 99) <= 50 ? 'met' : 'NOT met'} (p99 <= 50 ms) |`);
    console.log(`ratio p99 busy / idle: ${f1(pct(busy, 99) / pct(idle, 99))}`);
    if (failed.length) console.log(`failed: ${failed[0].error}`);
  } finally {
    await s.stop();
    await m.close();
    tmp.cleanup();
  }
}

await overhead();
await healthUnderTurns();
