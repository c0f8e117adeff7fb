// bench/server.mjs: 200 concurrent loopback clients reading a workflow's goal
// status from the real `pulse serve` while the scheduler tick writes (the
// injected clock moves a day every 250 ms, so every tick starts a goal check
// that records the check, agent-log rows, a decision and an outbox message),
// and the owner posts messages to Pulse. Prints requests/second, p50/p99
// latency and the error count. Bounded: REQUESTS total (default 20000) or
// 60 s, whichever comes first. Loopback only.
//
// On a loaded machine the absolute figures say little: --reference first
// runs the same clients against /api/health alone (no database, no goal
// check) on the same server, and the goal-status figures are also given as
// ratios to it.
//
// --mix: the clients mix goal-status, agent-log and decisions reads (one of
// each in turn) instead of goal-status alone; the figures are also given per
// route.
//
// --wrong-token also runs the clients against POST /mcp with a session token
// no workflow knows (answered 401 from the server's token index, with no
// database opened) and gives its figures as ratios to the reference.
//
//   node bench/server.mjs [--clients 200] [--requests 20000] [--keep-alive] [--reference] [--mix] [--wrong-token]
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, startServer, buildSubstack, buildHealthy, setNow, request } from '../tests/server/helpers.mjs';

const argv = process.argv.slice(2);
const opt = (name, def) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : def;
};
const CLIENTS = opt('clients', 200);
const REQUESTS = opt('requests', 20000);
const KEEP_ALIVE = argv.includes('--keep-alive');
const THREADS = opt('threads', 32);
const MAX_SECONDS = 60;

const tmp = makeTempDir('pulse-bench-server-');
const ws = join(tmp.dir, 'ws');
buildSubstack(ws);
buildHealthy(ws);
const nowFile = join(tmp.dir, 'now');
let day = Date.parse('2026-10-07T12:00:00Z');
setNow(nowFile, new Date(day).toISOString().replace('.000Z', 'Z'));
const server = await startServer(ws, ['--tick-seconds', '0.1', '--now-file', nowFile, '--threads', String(THREADS)]);
const REFERENCE = argv.includes('--reference');
const agent = new http.Agent({ keepAlive: KEEP_ALIVE, maxSockets: CLIENTS });

const WRONG_TOKEN = argv.includes('--wrong-token');
const MIX = argv.includes('--mix');
const MCP_BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

// One request to `url`: a GET (expects 200), or for /mcp a POST with a wrong
// session token (expects 401).
function get(url) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const mcpCall = url.pathname === '/mcp';
    const expect = mcpCall ? 401 : 200;
    const options = { host: url.hostname, port: url.port, path: url.pathname, agent, method: mcpCall ? 'POST' : 'GET' };
    if (mcpCall) options.headers = { 'content-type': 'application/json', authorization: `Bearer ${'f'.repeat(64)}` };
    const req = http.request(options, (res) => {
      let n = 0;
      res.on('data', (d) => { n += d.length; });
      res.on('end', () => resolve({ ok: res.statusCode === expect && n > 0, ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
    });
    req.on('error', (e) => resolve({ ok: false, ms: Number(process.hrtime.bigint() - t0) / 1e6, error: e.message }));
    req.end(mcpCall ? MCP_BODY : undefined);
  });
}

// Writers: the clock moves a day every 250 ms (a goal check per tick), and a
// message to Pulse every 500 ms.
let writing = true;
const clock = setInterval(() => {
  day += 86400000;
  setNow(nowFile, new Date(day).toISOString().replace('.000Z', 'Z'));
}, 250);
const talker = (async () => {
  let sent = 0;
  while (writing) {
    if (server.proc.exitCode !== null || server.proc.signalCode !== null) {
      console.error(`server exited (${server.proc.exitCode ?? server.proc.signalCode}): ${server.stderr.slice(-2000)}`);
      process.exit(1);
    }
    const r = await request(`${server.url}api/workflows/substack/messages`, { method: 'POST', token: server.ownerToken, body: { text: `bench ${sent}` } })
      .catch(() => ({ status: 0 }));  // a refused connection under load is counted by the clients, not fatal here
    if (r.status === 202) sent++;
    await new Promise((r2) => setTimeout(r2, 500));
  }
  return sent;
})();

// CPU seconds used so far by the server process (utime + stime of
// /proc/<pid>/stat, in clock ticks of 10 ms) and by this client: per request
// they are steady where the machine's other load makes req/s and latency
// noisy, and they show the client's share of the two cores.
function serverCpuSeconds() {
  try {
    const stat = readFileSync(`/proc/${server.proc.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;  // not Linux: the figure is left out
  }
}
const clientCpuSeconds = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };

// One phase: CLIENTS clients issuing REQUESTS requests in all, to the
// targets in turn.
async function phase(...targets) {
  const latencies = [];
  const byTarget = targets.map(() => []);
  let errors = 0;
  let issued = 0;
  const errorSamples = new Set();
  const t0 = Date.now();
  const cpu0 = [serverCpuSeconds(), clientCpuSeconds()];
  async function client() {
    while (issued < REQUESTS && Date.now() - t0 < MAX_SECONDS * 1000) {
      const i = issued++ % targets.length;
      const r = await get(targets[i]);
      latencies.push(r.ms);
      byTarget[i].push(r.ms);
      if (!r.ok) { errors++; if (r.error) errorSamples.add(r.error); }
    }
  }
  await Promise.all(Array.from({ length: CLIENTS }, client));
  const elapsed = (Date.now() - t0) / 1000;
  const cpu = { server: serverCpuSeconds() - cpu0[0], client: clientCpuSeconds() - cpu0[1] };
  latencies.sort((x, y) => x - y);
  const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
  const mean = latencies.reduce((x, y) => x + y, 0) / latencies.length;
  const routes = targets.map((t, i) => {
    const xs = byTarget[i].sort((x, y) => x - y);
    return { path: t.pathname, n: xs.length, p50: pct(xs, 50), p99: pct(xs, 99) };
  });
  return { latencies, errors, errorSamples, elapsed, rps: latencies.length / elapsed, p50: pct(latencies, 50), p99: pct(latencies, 99), mean, routes, cpu };
}

const reference = REFERENCE ? await phase(new URL(`${server.url}api/health`)) : null;
const wfUrl = (p) => new URL(`${server.url}api/workflows/substack/${p}`);
const main = MIX ? await phase(wfUrl('goal-status'), wfUrl('agent-log'), wfUrl('decisions')) : await phase(wfUrl('goal-status'));
const wrong = WRONG_TOKEN ? await phase(new URL(`${server.url}mcp`)) : null;
const { latencies, errors, errorSamples, elapsed } = main;
writing = false;
clearInterval(clock);
const messages = await talker;

const reads = (await request(`${server.url}api/health`)).body.reads;
const log = await request(`${server.url}api/workflows/substack/agent-log`);
const checks = log.body.rows.filter((r) => r.kind === 'goal_check').length;
const replies = log.body.rows.filter((r) => r.kind === 'ask_pulse').length;
await server.stop();
tmp.cleanup();

console.log(`pulse serve bench: ${CLIENTS} concurrent loopback clients, GET ${MIX ? 'goal-status, agent-log, decisions in turn' : 'goal-status'}, ${KEEP_ALIVE ? 'keep-alive' : 'a connection per request'}, ${THREADS} server threads`);
console.log(`  requests   ${latencies.length} in ${elapsed.toFixed(2)} s = ${(latencies.length / elapsed).toFixed(0)} req/s`);
console.log(`  latency    p50 ${main.p50.toFixed(1)} ms, p99 ${main.p99.toFixed(1)} ms, mean ${main.mean.toFixed(1)} ms, max ${latencies[latencies.length - 1].toFixed(1)} ms`);
if (MIX) for (const r of main.routes) console.log(`  route      ${r.path}: ${r.n} requests, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms`);
const perRequest = (p) => `server ${(p.cpu.server / p.latencies.length * 1e6).toFixed(0)} µs, client ${(p.cpu.client / p.latencies.length * 1e6).toFixed(0)} µs (${(p.cpu.server / p.elapsed * 100).toFixed(0)}% and ${(p.cpu.client / p.elapsed * 100).toFixed(0)}% of one core)`;
console.log(`  cpu        per request: ${perRequest(main)}`);
console.log(`  errors     ${errors}${errorSamples.size ? ` (${[...errorSamples].slice(0, 3).join('; ')})` : ''}`);
console.log(`  writes     ${checks} goal-check turns by the tick, ${messages} messages to Pulse (${replies} turns) during the run`);
if (reads) {
  console.log(`  reads      ${reads.status_recomputes} goal statuses computed, ${reads.status_hits} from memory; ${reads.opens} connections opened, ${reads.reuses} reused`);
  if (reads.answer_recomputes !== undefined) console.log(`  answers    ${reads.answer_recomputes} other reads computed, ${reads.answer_hits} from memory`);
}
if (reference) {
  const r = reference;
  console.log(`  reference  GET /api/health, same clients: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, mean ${r.mean.toFixed(1)} ms, errors ${r.errors}`);
  console.log(`  cpu        per health request: ${perRequest(r)}`);
  console.log(`  ratio      goal-status / health: req/s ${(main.rps / r.rps).toFixed(2)}, p50 ${(main.p50 / r.p50).toFixed(2)}, p99 ${(main.p99 / r.p99).toFixed(2)}`);
}
if (wrong) {
  const w = wrong;
  console.log(`  wrong token POST /mcp (401), same clients: ${w.rps.toFixed(0)} req/s, p50 ${w.p50.toFixed(1)} ms, p99 ${w.p99.toFixed(1)} ms, errors ${w.errors}`);
  if (reference) console.log(`  ratio      wrong-token mcp / health: req/s ${(w.rps / reference.rps).toFixed(2)}, p99 ${(w.p99 / reference.p99).toFixed(2)}`);
}
process.exit(errors === 0 && (!wrong || wrong.errors === 0) && (!reference || reference.errors === 0) ? 0 : 1);
