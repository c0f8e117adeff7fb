// Helpers for the server suites: a temp workspace, the real `pulse serve` on
// an ephemeral loopback port, JSON requests, the real `pulse` CLI.
import { createServer } from 'node:net';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PULSE_BIN, makeTempDir as makePrivateTempDir } from '../node/helpers.mjs';

export { PULSE_BIN };

// A temp dir the runner user can enter: run as root, `pulse serve` starts
// runners as nobody (docs/security.md), and mkdtemp's 0700 would keep them
// out of the workspace and their scripts.
export function makeTempDir(prefix) {
  const tmp = makePrivateTempDir(prefix);
  chmodSync(tmp.dir, 0o755);
  return tmp;
}

// A folder runners may write (given to --sandbox-allow-write): whatever user
// they run as.
export function runnerWritableDir(path) {
  mkdirSync(path, { recursive: true });
  chmodSync(path, 0o777);
  return path;
}

export const SUBSTACK_CONFIG = {
  pulse: { enabled: true, autonomy: { run: 'ask', outward: 'ask', change: 'ask', answer: 'recommend' } },
  goal: {
    primary_metric: {
      name: 'subscribers', route: 'growth_funnel', direction: 'increase', target: 1000,
      baseline: 200, baseline_at: '2026-08-01T00:00:00Z', deadline: '2026-12-31T00:00:00Z',
    },
  },
  schedules: [{ id: 'daily', cron: '0 9 * * *', enabled: true }],
};

// Writes Workflow/<name>/workflow.json for each entry; returns the workspace path.
export function makeWorkspace(dir, workflows) {
  const ws = join(dir, 'ws');
  for (const [name, config] of Object.entries(workflows)) {
    mkdirSync(join(ws, 'Workflow', name), { recursive: true });
    writeFileSync(join(ws, 'Workflow', name, 'workflow.json'), JSON.stringify(config, null, 2));
  }
  mkdirSync(ws, { recursive: true });
  return ws;
}

// Runs the real CLI; returns {status, stdout, stderr, json}.
export function pulse(args, opts = {}) {
  const r = spawnSync(PULSE_BIN, args, { encoding: 'utf8', timeout: 30000, ...opts });
  let json;
  try { json = JSON.parse(r.stdout); } catch { json = undefined; }
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, json };
}

// The real CLI without blocking this process (a scripted model server or a
// loopback peer answers from it): {status, stdout, stderr, json}. Killed
// after `timeoutMs`.
export function pulseAsync(args, env = process.env, { timeoutMs = 120000 } = {}) {
  return new Promise((resolve) => {
    const p = spawn(PULSE_BIN, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => { stdout += d; });
    p.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('close', (status) => {
      clearTimeout(timer);
      let json;
      try { json = JSON.parse(stdout); } catch { json = undefined; }
      resolve({ status, stdout, stderr, json });
    });
  });
}

// The agent-log row of turn `runId` (its pulse_run_id) once it has ended.
export async function turnRow(s, runId, { workflow = 'substack', timeoutMs = 20000 } = {}) {
  return waitFor(async () => {
    const rows = (await request(`${s.url}api/workflows/${workflow}/agent-log?run_id=${runId}`)).body.rows;
    return rows.length === 1 && rows[0].status !== 'running' ? rows[0] : null;
  }, { what: `turn ${runId}`, timeoutMs });
}

// The owner's message to Pulse (Talk to Pulse); the turn's row once it has ended.
export async function sayToPulse(s, text, { workflow = 'substack', timeoutMs = 20000 } = {}) {
  const r = await request(`${s.url}api/workflows/${workflow}/messages`, { method: 'POST', token: s.ownerToken, body: { text } });
  if (r.status !== 202) throw new Error(`POST messages: ${r.status} ${r.text}`);
  return turnRow(s, r.body.turn.pulse_run_id, { workflow, timeoutMs });
}

// Every regular file under dir as [path, bytes] (links and what vanishes
// meanwhile passed over).
export function* filesUnder(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) yield* filesUnder(p); else if (st.isFile()) yield [p, readFileSync(p)];
  }
}

// Owner tokens seen per workspace: the server shows a token once, when it
// makes it, so a restarted server's token comes from here.
const knownOwnerTokens = new Map();

// The owner token `pulse token rotate` prints (it replaces the old one).
export function rotateOwnerToken(workspace) {
  const r = pulse(['token', 'rotate', '--workspace', workspace]);
  if (r.status !== 0) throw new Error(`token rotate: ${r.stderr}`);
  const token = r.stdout.trim();
  knownOwnerTokens.set(workspace, token);
  return token;
}

// Starts `pulse serve` on an ephemeral port. Resolves once stdout names the
// URL and the owner-token line ("pulse: open ...") has followed it; the owner
// token is the one that line shows (a new workspace), or the one this process
// saw before for the workspace.
export async function startServer(workspace, extra = [], { env, startTimeoutMs = 20000 } = {}) {
  const proc = spawn(PULSE_BIN, ['serve', '--workspace', workspace, '--port', '0', ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...(env || {}) },
  });
  let stdout = '';
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), startTimeoutMs);
    proc.stdout.on('data', (d) => {
      stdout += d;
      const m = stdout.match(/^pulse: serving (http:\/\/\S+)\n/);
      if (m && /^pulse: open .*\n/m.test(stdout)) { clearTimeout(timer); resolve(m[1]); }
    });
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited ${code}: ${stderr}`)); });
  });
  const shown = stdout.match(/#token=([0-9a-f]{64})/);
  if (shown) knownOwnerTokens.set(workspace, shown[1]);
  const ownerToken = knownOwnerTokens.get(workspace);
  const server = {
    url, proc, ownerToken, exited,
    get stderr() { return stderr; },
    get stdout() { return stdout; },
    // Bounded: a server that does not exit is killed and the test fails
    // with the reason, rather than hanging the whole run.
    async stop(signal = 'SIGTERM', { timeoutMs = 30000 } = {}) {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      let timer;
      const late = new Promise((resolve) => { timer = setTimeout(() => resolve(null), timeoutMs); });
      const result = await Promise.race([exited, late]);
      clearTimeout(timer);
      if (result) return result;
      proc.kill('SIGKILL');
      await exited;
      throw new Error(`pulse serve did not exit within ${timeoutMs} ms of ${signal}; stderr:\n${stderr.slice(-2000)}`);
    },
  };
  return server;
}

// fetch + JSON: {status, body, headers}.
export async function request(url, { method = 'GET', token, body, raw, headers = {}, signal } = {}) {
  const h = { ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  let payload;
  if (raw !== undefined) payload = raw;
  else if (body !== undefined) { payload = JSON.stringify(body); h['content-type'] = 'application/json'; }
  const res = await fetch(url, { method, headers: h, body: payload, signal });
  const text = await res.text();
  let parsed;
  try { parsed = text ? JSON.parse(text) : undefined; } catch { parsed = text; }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

// Polls `fn` until it returns a truthy value (bounded; no timing assertion).
export async function waitFor(fn, { timeoutMs = 20000, intervalMs = 100, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
}

// The workflow's first goal-check turn once it has finished (its agent-log row).
export async function finishedGoalCheck(s, workflow = 'substack') {
  return waitFor(async () => {
    const rows = (await request(`${s.url}api/workflows/${workflow}/agent-log`)).body.rows.filter((r) => r.kind === 'goal_check');
    return rows.length && rows[0].status !== 'running' ? rows[0] : null;
  }, { what: `${workflow}'s goal check turn` });
}

export async function mcp(url, token, method, params, id = 1) {
  const body = { jsonrpc: '2.0', method };
  if (id !== null) body.id = id;
  if (params !== undefined) body.params = params;
  return request(`${url}mcp`, { method: 'POST', token, body });
}

export const HEALTHY_CONFIG = {
  pulse: { enabled: true, autonomy: { run: 'ask', outward: 'ask', change: 'ask', answer: 'recommend' } },
  goal: {
    primary_metric: {
      name: 'readers', route: 'publish', direction: 'increase', target: 200,
      baseline: 100, baseline_at: '2026-09-01T00:00:00Z', deadline: '2026-12-31T00:00:00Z',
    },
  },
  schedules: [{ id: 'daily', cron: '0 9 * * *', enabled: true }],
};

// One finished run through the platform's after-run hook (pulse finalize-run).
export function addRun(ws, workflow, run, route) {
  const dir = join(ws, 'Workflow', workflow, 'runs', `iteration-${run.run_id}`, 'default');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'run.json'), JSON.stringify({ trigger: 'schedule:daily', error: '', ...run }));
  writeFileSync(join(dir, 'route_selection.json'), JSON.stringify({ route }));
  const r = pulse(['finalize-run', '--workspace', ws, '--workflow', workflow, '--run-dir', dir]);
  if (r.status !== 0) throw new Error(`finalize-run ${run.run_id}: ${r.stderr}`);
}

export function observe(ws, workflow, metric, value, at, source, runId) {
  const args = ['observe', '--workspace', ws, '--workflow', workflow, '--metric', metric, '--value', String(value),
    '--at', at, '--source', source];
  if (runId) args.push('--run-id', runId);
  const r = pulse(args);
  if (r.status !== 0) throw new Error(`observe: ${r.stderr}`);
}

// A workflow in the Substack case as of 2026-10-07: last measured by a run
// on 17 Sep, growth runs since without a reading, a builder-chat reading on
// 7 Oct. Its goal check is not on track.
export function buildSubstack(ws, workflow = 'substack', config = SUBSTACK_CONFIG) {
  makeWorkspace(join(ws, '..'), { [workflow]: config });
  addRun(ws, workflow, { run_id: 'r-0001', started_at: '2026-09-17T09:00:00Z', finished_at: '2026-09-17T09:30:00Z', status: 'completed' }, 'growth_funnel');
  observe(ws, workflow, 'subscribers', 380, '2026-09-17T09:20:00Z', 'workflow_run', 'r-0001');
  for (let i = 0; i < 6; i++) {
    const d = String(18 + i).padStart(2, '0');
    addRun(ws, workflow, { run_id: `r-00${10 + i}`, started_at: `2026-09-${d}T09:00:00Z`, finished_at: `2026-09-${d}T09:30:00Z`, status: 'completed' }, 'growth_funnel');
  }
  addRun(ws, workflow, { run_id: 'r-0030', started_at: '2026-09-30T09:00:00Z', finished_at: '2026-09-30T09:30:00Z', status: 'completed' }, 'publish_review');
  observe(ws, workflow, 'subscribers', 412, '2026-10-07T08:10:00Z', 'builder_chat');
}

// A workflow on track as of 2026-10-07: measured by yesterday's run, ahead of
// the line from baseline to target.
export function buildHealthy(ws, workflow = 'healthy', config = HEALTHY_CONFIG) {
  makeWorkspace(join(ws, '..'), { [workflow]: config });
  addRun(ws, workflow, { run_id: 'h-0001', started_at: '2026-10-06T09:00:00Z', finished_at: '2026-10-06T09:30:00Z', status: 'completed' }, 'publish');
  observe(ws, workflow, 'readers', 150, '2026-10-06T09:20:00Z', 'workflow_run', 'h-0001');
}

export function setNow(file, at) { writeFileSync(file, `${at}\n`); }

// A temp dir holding a workspace with the Substack workflow (`config`) and a
// now-file at `now`: {tmp, ws, wf, nowFile}.
export function substackWorkspace(prefix, config = SUBSTACK_CONFIG, now = '2026-10-07T12:00:00Z') {
  const tmp = makeTempDir(prefix);
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws, 'substack', config);
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, now);
  return { tmp, ws, wf: join(ws, 'Workflow', 'substack'), nowFile };
}

// A loopback port free now (for programs that must be told their port, such as etcd).
export async function freePort() {
  const srv = createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}
