// `pulse serve --otlp-endpoint`: the agent log and the guarded tool calls as
// OpenTelemetry spans, received on loopback and decoded with the official
// OTLP protobuf definitions (otlp_receiver.mjs). A turn with a refused tool
// call is a span tree; trace ids follow the pulse_run_id; a failed agent's
// span says ERROR with its error; a SIGKILL of the server mid-export neither
// loses nor repeats a span; a collector that answers 503 or hangs slows
// neither the agent log nor the turns; `pulse agent-log export-otlp` sends
// history once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, makeWorkspace, pulse, PULSE_BIN, request, startServer, SUBSTACK_CONFIG, waitFor } from './helpers.mjs';
import { startReceiver } from './otlp_receiver.mjs';

// The ids Pulse derives, computed here independently (otlp_export.h).
function hashId(parts, hexDigits) {
  return createHash('sha256').update(parts.map((p) => `${p}\0`).join('')).digest('hex').slice(0, hexDigits);
}
const traceId = (wf, run) => hashId(['pulse trace', wf, run], 32);
const agentSpanId = (wf, session, agent) => hashId(['pulse agent', wf, session, agent], 16);

// An external runner: "refuse" calls a tool the guard holds (trigger_schedule
// at run=ask) and one it allows, "crash" exits 3.
const RUNNER = `
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const message = String(input.context.message || '');
if (message.includes('crash')) { console.error('runner blew up'); process.exit(3); }
const call = (tool, body) => fetch(process.env.PULSE_TOOL_URL + tool, {
  method: 'POST', headers: { authorization: 'Bearer ' + process.env.MCP_API_TOKEN, 'content-type': 'application/json' },
  body: JSON.stringify(body) }).then((r) => r.status);
(async () => {
  const refused = await call('trigger_schedule', { schedule_id: 'daily' });
  const allowed = await call('create_decision_request', { question: 'Shall I add a reading step?' });
  console.log('refused ' + refused + ', allowed ' + allowed);
})();
`;

function workspace(dir) {
  return makeWorkspace(dir, { substack: SUBSTACK_CONFIG });
}

// 'pulse agent-log batch' with one JSON event a line.
function recordBatch(ws, events) {
  const r = spawnSync(PULSE_BIN, ['agent-log', 'batch', '--workspace', ws, '--workflow', 'substack'],
    { input: events.map((e) => JSON.stringify(e)).join('\n') + '\n', encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, r.stderr);
  return r;
}

// The live cursor placed at the log's end now (history since a future time
// is nothing): what is recorded from here on is the live exporter's.
function startCursor(ws) {
  const r = pulse(['agent-log', 'export-otlp', '--workspace', ws, '--workflow', 'substack', '--since', '2099-01-01T00:00:00Z',
    '--otlp-endpoint', 'http://127.0.0.1:9']);
  assert.equal(r.status, 0, r.stderr);
}

test('a turn with a refused tool call is a span tree; a failed agent says ERROR; trace ids follow the run', { timeout: 120000 }, async () => {
  const tmp = makeTempDir('pulse-otlp-tree-');
  const ws = workspace(tmp.dir);
  const script = join(tmp.dir, 'runner.cjs');
  writeFileSync(script, RUNNER);
  const rx = await startReceiver();
  const s = await startServer(ws, ['--no-tick', '--runner', `node ${script}`, '--sandbox-allow-read', script,
    '--otlp-endpoint', rx.url, '--otlp-header', 'X-Tenant=pulse-test', '--otlp-interval', '0.1']);
  try {
    assert.match(s.stdout, new RegExp(`traces to ${rx.url}/v1/traces \\(OTLP\\)`));
    const turn = async (text) => {
      const r = await request(`${s.url}api/workflows/substack/messages`, { method: 'POST', token: s.ownerToken, body: { text } });
      assert.equal(r.status, 202, JSON.stringify(r.body));
      return r.body.turn;
    };
    const refuse = await turn('please refuse');
    // Two agents of one run recorded by another process, one the other's child.
    recordBatch(ws, [
      { event: 'started', session: 'bg-1', agent: 'gate', name: 'Gate', pulse_run_id: 'pr-ext-1', at: '2026-10-07T10:00:00Z' },
      { event: 'started', session: 'bg-1', agent: 'fixer', name: 'Fixer', parent: 'gate', pulse_run_id: 'pr-ext-1', at: '2026-10-07T10:00:01Z' },
      { event: 'completed', session: 'bg-1', agent: 'fixer', status: 'failed', error: 'git push rejected', at: '2026-10-07T10:00:09Z' },
      { event: 'completed', session: 'bg-1', agent: 'gate', at: '2026-10-07T10:00:10Z' },
    ]);
    await waitFor(async () => (await request(`${s.url}api/workflows/substack/agent-log?status=running`)).body.rows.length === 0,
      { what: 'the refusing turn to end' });
    const crash = await turn('please crash');
    const find = (pred) => rx.received.find(pred);
    await waitFor(() => find((sp) => sp.attrs['gen_ai.agent.id'] === crash.agent), { what: 'the crashed turn\'s span', timeoutMs: 30000 });
    await waitFor(() => rx.received.filter((sp) => sp.attrs['gen_ai.operation.name'] === 'execute_tool').length >= 2,
      { what: 'the tool calls\' spans', timeoutMs: 30000 });
    assert.deepEqual(rx.errors, []);
    assert.equal(rx.requests[0].headers['x-tenant'], 'pulse-test');
    assert.equal(rx.requests[0].spans[0].resource.attributes.find((a) => a.key === 'service.name').value.stringValue, 'pulse');

    // The refusing turn: an invoke_agent span in its run's trace ...
    const turnSpan = find((sp) => sp.attrs['gen_ai.agent.id'] === refuse.agent);
    assert.equal(turnSpan.name, `invoke_agent ${turnSpan.attrs['gen_ai.agent.name']}`);
    assert.equal(turnSpan.attrs['gen_ai.operation.name'], 'invoke_agent');
    assert.equal(turnSpan.attrs['pulse.workflow'], 'substack');
    assert.equal(turnSpan.attrs['pulse.run_id'], refuse.pulse_run_id);
    assert.equal(turnSpan.traceId, traceId('substack', refuse.pulse_run_id));
    assert.equal(turnSpan.spanId, agentSpanId('substack', refuse.session, refuse.agent));
    assert.equal(turnSpan.status.code, 1);
    assert.equal(turnSpan.parentSpanId, undefined);
    // ... with its guarded tool calls as children.
    const tools = rx.received.filter((sp) => sp.parentSpanId === turnSpan.spanId);
    assert.deepEqual(tools.map((t) => t.attrs['gen_ai.tool.name']).sort(), ['create_decision_request', 'trigger_schedule']);
    for (const t of tools) {
      assert.equal(t.traceId, turnSpan.traceId);
      assert.equal(t.attrs['gen_ai.operation.name'], 'execute_tool');
      assert.equal(t.name, `execute_tool ${t.attrs['gen_ai.tool.name']}`);
      assert.ok(BigInt(t.startTimeUnixNano) >= BigInt(turnSpan.startTimeUnixNano));
    }
    const refused = tools.find((t) => t.attrs['gen_ai.tool.name'] === 'trigger_schedule');
    assert.equal(refused.attrs['pulse.guard.outcome'], 'refused');
    assert.equal(refused.attrs['pulse.guard.rule'], 'run_level');
    assert.equal(refused.status.code, 2);
    assert.match(refused.status.message, /^refused: /);
    const allowed = tools.find((t) => t.attrs['gen_ai.tool.name'] === 'create_decision_request');
    assert.equal(allowed.attrs['pulse.guard.outcome'], 'allowed');

    // The crashed turn: ERROR with the runner's failure.
    const crashed = find((sp) => sp.attrs['gen_ai.agent.id'] === crash.agent);
    assert.equal(crashed.status.code, 2);
    assert.match(crashed.status.message, /runner exited with status 3: runner blew up/);
    assert.equal(crashed.attrs['pulse.agent.status'], 'failed');

    // The other process's agents: one trace for run pr-ext-1, the child under its parent.
    const gate = find((sp) => sp.attrs['gen_ai.agent.id'] === 'gate');
    const fixer = find((sp) => sp.attrs['gen_ai.agent.id'] === 'fixer');
    assert.equal(gate.traceId, traceId('substack', 'pr-ext-1'));
    assert.equal(fixer.traceId, gate.traceId);
    assert.equal(fixer.parentSpanId, gate.spanId);
    assert.equal(fixer.status.code, 2);
    assert.equal(fixer.status.message, 'git push rejected');
    assert.equal(fixer.startTimeUnixNano, `${Date.parse('2026-10-07T10:00:01Z') / 1000}000000000`);
    // Every span once.
    const ids = rx.received.map((sp) => sp.spanId);
    assert.equal(new Set(ids).size, ids.length);
  } finally {
    await s.stop();
    await rx.close();
    tmp.cleanup();
  }
});

test('a SIGKILL of the server mid-export neither loses nor repeats a span', { timeout: 120000 }, async () => {
  const tmp = makeTempDir('pulse-otlp-kill-');
  const ws = workspace(tmp.dir);
  startCursor(ws);
  const N = 600;  // three batches of at most 256
  const events = [];
  for (let i = 0; i < N; i++) {
    events.push({ event: 'started', session: `bg-${i % 7}`, agent: `a${i}`, pulse_run_id: `pr-${i % 5}`, at: '2026-10-07T10:00:00Z' });
    events.push({ event: 'completed', session: `bg-${i % 7}`, agent: `a${i}`, at: '2026-10-07T10:01:00Z' });
  }
  recordBatch(ws, events);
  let hang = true;
  // The first request is taken, the second hangs until the server is killed.
  const rx = await startReceiver({ mode: () => (rx.requests.length >= 2 && hang ? 'hang' : 'ok') });
  const args = ['--no-tick', '--otlp-endpoint', rx.url, '--otlp-interval', '0.1'];
  let s = await startServer(ws, args);
  try {
    await waitFor(() => rx.requests.length >= 2, { what: 'the second request to hang' });
    assert.equal(rx.received.length, 256);
    await s.stop('SIGKILL');
    hang = false;
    s = await startServer(ws, args);
    await waitFor(() => rx.received.length >= N, { what: 'every span after the restart', timeoutMs: 30000 });
    // A little longer: nothing more comes.
    await new Promise((r) => setTimeout(r, 500));
    const ids = rx.received.map((sp) => sp.spanId);
    assert.equal(ids.length, N, 'no span repeated');
    assert.equal(new Set(ids).size, N);
    const want = new Set(Array.from({ length: N }, (_, i) => agentSpanId('substack', `bg-${i % 7}`, `a${i}`)));
    assert.deepEqual(new Set(ids), want, 'no span lost');
    // The hung request's spans were sent again, to the new server's receiver answer.
    assert.ok(rx.requests.filter((q) => !q.answered).length >= 1);
    assert.deepEqual(rx.errors, []);
  } finally {
    await s.stop();
    await rx.close();
    tmp.cleanup();
  }
});

test('a collector that answers 503 or hangs slows neither the agent log nor the turns; nothing is lost', { timeout: 120000 }, async () => {
  const tmp = makeTempDir('pulse-otlp-down-');
  const ws = workspace(tmp.dir);
  startCursor(ws);
  let mode = 503;
  const rx = await startReceiver({ mode: () => mode });
  const s = await startServer(ws, ['--no-tick', '--otlp-endpoint', rx.url, '--otlp-interval', '0.1']);
  try {
    for (const m of [503, 'hang']) {
      mode = m;
      const asked = rx.requests.length;
      // The agent log takes writes from another process and the server's turns at once.
      const events = [];
      for (let i = 0; i < 100; i++) {
        events.push({ event: 'started', session: `down-${m}`, agent: `x${i}` });
        events.push({ event: 'completed', session: `down-${m}`, agent: `x${i}` });
      }
      const out = recordBatch(ws, events).stdout.trim().split('\n');
      assert.equal(out.filter((l) => l.startsWith('ok ')).length, 200);
      await waitFor(() => rx.requests.length > asked, { what: `the collector to be asked (${m})`, timeoutMs: 30000 });
      const sent = await request(`${s.url}api/workflows/substack/messages`, { method: 'POST', token: s.ownerToken, body: { text: `while ${m}` } });
      assert.equal(sent.status, 202);
      await waitFor(async () => {
        const rows = (await request(`${s.url}api/workflows/substack/agent-log?session=${encodeURIComponent(sent.body.turn.session)}`)).body.rows;
        return rows.find((r) => r.agent_id === sent.body.turn.agent && r.status === 'completed');
      }, { what: `the turn to complete while the collector answers ${m}` });
      const health = await request(`${s.url}api/health`);
      assert.equal(health.status, 200);
    }
    const metrics = (await request(`${s.url}metrics`)).text;
    assert.match(metrics, /^pulse_otlp_export_failures_total [1-9]/m);
    assert.equal(rx.received.length, 0);
    // The collector is back: everything recorded meanwhile arrives, once.
    mode = 'ok';
    await waitFor(() => rx.received.filter((sp) => /^down-/.test(sp.attrs['pulse.session'])).length >= 200,
      { what: 'the spans held back', timeoutMs: 90000 });
    const ids = rx.received.map((sp) => sp.spanId);
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(rx.received.filter((sp) => /^while /.test(sp.attrs['gen_ai.agent.name'] || '') || sp.attrs['pulse.agent.kind'] === 'ask_pulse').length >= 2);
  } finally {
    await s.stop();
    await rx.close();
    tmp.cleanup();
  }
});

// The command line without blocking this process (the receiver answers
// from its event loop).
function pulseAsync(args) {
  return new Promise((resolve) => {
    const p = spawn(PULSE_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => { stdout += d; });
    p.stderr.on('data', (d) => { stderr += d; });
    p.on('exit', (status) => {
      let json;
      try { json = JSON.parse(stdout); } catch { json = undefined; }
      resolve({ status, stdout, stderr, json });
    });
  });
}

test('pulse agent-log export-otlp sends history since T once', { timeout: 60000 }, async () => {
  const tmp = makeTempDir('pulse-otlp-history-');
  const ws = workspace(tmp.dir);
  recordBatch(ws, [
    { event: 'started', session: 'old', agent: 'june', at: '2026-06-01T10:00:00Z' },
    { event: 'completed', session: 'old', agent: 'june', at: '2026-06-01T10:05:00Z' },
    { event: 'started', session: 'old', agent: 'sept', at: '2026-09-01T10:00:00Z' },
    { event: 'completed', session: 'old', agent: 'sept', status: 'failed', error: 'boom', at: '2026-09-01T10:05:00Z' },
  ]);
  const rx = await startReceiver();
  try {
    const send = (since) => pulseAsync(['agent-log', 'export-otlp', '--workspace', ws, '--workflow', 'substack', '--since', since,
      '--otlp-endpoint', rx.url, '--json']);
    // A collector that is not there: exit 1 with the reason, nothing marked sent.
    let r = await pulseAsync(['agent-log', 'export-otlp', '--workspace', ws, '--workflow', 'substack', '--since', '2026-08-01T00:00:00Z',
      '--otlp-endpoint', 'http://127.0.0.1:9']);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /^pulse: http:\/\/127\.0\.0\.1:9\/v1\/traces did not take 1 spans/);
    r = await send('2026-08-01T00:00:00Z');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual([r.json.sent, r.json.agent_spans, r.json.tool_spans], [1, 1, 0]);
    assert.deepEqual(rx.received.map((sp) => sp.attrs['gen_ai.agent.id']), ['sept']);
    r = await send('2026-08-01T00:00:00Z');
    assert.equal(r.json.sent, 0, 'sent once');
    r = await send('2026-01-01T00:00:00Z');
    assert.equal(r.json.sent, 1);
    assert.deepEqual(rx.received.map((sp) => sp.attrs['gen_ai.agent.id']), ['sept', 'june']);
    // Bad input: one line naming it, nothing sent.
    r = await pulseAsync(['agent-log', 'export-otlp', '--workspace', ws, '--workflow', 'substack', '--since', 'yesterday', '--otlp-endpoint', rx.url]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--since/);
    r = await pulseAsync(['agent-log', 'export-otlp', '--workspace', ws, '--workflow', 'substack', '--since', '2026-01-01T00:00:00Z', '--otlp-endpoint', 'ftp://x']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^pulse: --otlp-endpoint: expected http/);
    r = await pulseAsync(['agent-log', 'export-otlp', '--workspace', ws, '--workflow', 'substack', '--since', '2026-01-01T00:00:00Z', '--otlp-endpoint', rx.url, '--otlp-header', 'Bad Name=x']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--otlp-header: "Bad Name" is not a header name/);
    // pulse serve refuses the same flags before it serves anything.
    for (const [flags, why] of [
      [['--otlp-endpoint', rx.url, '--otlp-header', 'NoEquals'], /^pulse: --otlp-header: expected NAME=VALUE/],
      [['--otlp-header', 'X-Key=a\nb'], /^pulse: --otlp-header: the value of X-Key has a line break/],
      [['--otlp-endpoint', '127.0.0.1:4318'], /^pulse: --otlp-endpoint: expected http/],
    ]) {
      r = pulse(['serve', '--workspace', ws, '--port', '0', '--no-tick', ...flags], { timeout: 10000 });
      assert.equal(r.status, 2, `${flags.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, why);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
    assert.deepEqual(rx.errors, []);
  } finally {
    await rx.close();
    tmp.cleanup();
  }
});
