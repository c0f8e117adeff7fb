// Background turns through an external runner: the turn's charter and
// context on stdin, the session's MCP endpoint and token in the environment;
// a crashing or hanging runner leaves a completed agent-log row with the
// error and the server goes on; SIGTERM and SIGKILL lose no turn record.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { request, startServer, makeTempDir, buildSubstack, setNow, waitFor, pulse, mcp, runnerWritableDir } from './helpers.mjs';

// A runner that speaks MCP back to the server with its session token.
const AGENT = `
import { readFileSync, writeFileSync } from 'node:fs';
const input = JSON.parse(readFileSync(0, 'utf8'));
const out = process.argv[2];
writeFileSync(out + '.stdin.json', JSON.stringify(input));
writeFileSync(out + '.env.json', JSON.stringify({ url: process.env.MCP_API_URL, token: process.env.MCP_API_TOKEN,
  session: process.env.PULSE_SESSION, tool_url: process.env.PULSE_TOOL_URL }));
const call = async (method, params, id = 1) => {
  const r = await fetch(process.env.MCP_API_URL, { method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.MCP_API_TOKEN },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) });
  return r.json();
};
await call('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
const status = await call('tools/call', { name: 'get_pulse_state', arguments: { view: 'goal_status' } }, 2);
const rec = await call('tools/call', { name: 'record_pulse_goal_check', arguments: { verdict: status.result.structuredContent.result.status } }, 3);
console.log('agent recorded ' + rec.result.structuredContent.result.check.status);
`;

async function turnRow(s, wf, runId) {
  return waitFor(async () => {
    const rows = (await request(`${s.url}api/workflows/${wf}/agent-log?run_id=${runId}`)).body.rows;
    return rows.length === 1 && rows[0].status !== 'running' ? rows[0] : null;
  }, { what: `turn ${runId}` });
}

async function say(s, text) {
  const r = await request(`${s.url}api/workflows/substack/messages`, { method: 'POST', token: s.ownerToken, body: { text } });
  assert.equal(r.status, 202, r.text);
  return r.body.turn;
}

test('an external runner gets the charter and context on stdin and works through MCP with its session token', async () => {
  const tmp = makeTempDir('pulse-serve-runner-');
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws);
  writeFileSync(join(tmp.dir, 'agent.mjs'), AGENT);
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-07T12:00:00Z');
  // The runner is sandboxed (serve_sandbox.test.mjs): its script and its
  // output folder are granted explicitly.
  const out = join(tmp.dir, 'out');
  runnerWritableDir(out);
  const s = await startServer(ws, ['--tick-seconds', '0.2', '--now-file', nowFile,
    '--runner', `node ${join(tmp.dir, 'agent.mjs')} ${join(out, 'turn')}`, '--runner-timeout', '60',
    '--sandbox-allow-read', join(tmp.dir, 'agent.mjs'), '--sandbox-allow-write', out]);
  try {
    const row = await waitFor(async () => {
      const rows = (await request(`${s.url}api/workflows/substack/agent-log`)).body.rows.filter((r) => r.kind === 'goal_check');
      return rows.length && rows[0].status !== 'running' ? rows[0] : null;
    }, { what: 'the goal check turn' });
    assert.equal(row.status, 'completed', JSON.stringify(row));
    assert.equal(row.result, 'agent recorded not_measured');
    const stdin = JSON.parse(readFileSync(join(out, 'turn.stdin.json'), 'utf8'));
    assert.match(stdin.charter, /daily goal check/);
    assert.equal(stdin.turn.kind, 'goal_check');
    assert.equal(stdin.turn.pulse_run_id, row.pulse_run_id);
    assert.equal(stdin.turn.session, row.session_id);
    assert.equal(stdin.context.goal_status.status, 'not_measured');
    assert.deepEqual(stdin.tools.map((t) => t.name).sort(), ['ask_builder', 'create_decision_request', 'get_pulse_state',
      'record_housekeeping', 'record_pulse_decision_outcome', 'record_pulse_fast_request', 'record_pulse_focus_area',
      'record_pulse_goal_check', 'record_pulse_goal_memory', 'record_pulse_qa_request', 'record_pulse_recommendation',
      'record_workflow_review']);
    assert.equal(stdin.mcp.url, `${s.url}mcp`);
    const env = JSON.parse(readFileSync(join(out, 'turn.env.json'), 'utf8'));
    assert.equal(env.url, `${s.url}mcp`);
    assert.ok(env.token.length >= 16);
    assert.ok(!JSON.stringify(stdin).includes(env.token), 'the token travels only in the environment');

    // The turn is over: its session is closed and its token refused.
    const late = await request(`${env.tool_url}get_pulse_state`, { method: 'POST', token: env.token, body: { view: 'goal_status' } });
    assert.equal(late.status, 403);
    assert.equal(late.body.refused, true);
    assert.match(late.body.reason, /closed/);
    const lateMcp = await mcp(s.url, env.token, 'tools/call', { name: 'get_pulse_state', arguments: { view: 'goal_status' } });
    assert.equal(lateMcp.body.result.isError, true);
    assert.match(lateMcp.body.result.content[0].text, /closed/);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('a crashing runner and a hanging runner leave completed rows with the error; the server goes on', async () => {
  const tmp = makeTempDir('pulse-serve-crash-');
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws);
  const script = join(tmp.dir, 'runner.sh');
  // Crashes on "crash", hangs on "hang", answers otherwise.
  writeFileSync(script, `#!/bin/sh
input=$(cat)
case "$input" in
  *'"message":"crash"'*) echo "runner blew up" >&2; exit 3 ;;
  *'"message":"hang"'*) sleep 60 ;;
  *'"message":"die"'*) kill -9 $$ ;;
esac
echo "answered"
`);
  const s = await startServer(ws, ['--no-tick', '--runner', `sh ${script}`, '--runner-timeout', '1', '--sandbox-allow-read', script]);
  try {
    const crash = await turnRow(s, 'substack', (await say(s, 'crash')).pulse_run_id);
    assert.equal(crash.status, 'failed');
    assert.match(crash.error, /runner exited with status 3: runner blew up/);
    assert.equal(crash.kind, 'ask_pulse');

    const hang = await turnRow(s, 'substack', (await say(s, 'hang')).pulse_run_id);
    assert.equal(hang.status, 'failed');
    assert.match(hang.error, /timed out after 1 s/);

    const die = await turnRow(s, 'substack', (await say(s, 'die')).pulse_run_id);
    assert.equal(die.status, 'failed');
    assert.match(die.error, /signal 9/);

    const ok = await turnRow(s, 'substack', (await say(s, 'hello')).pulse_run_id);
    assert.equal(ok.status, 'completed');
    assert.equal(ok.result, 'answered');
    assert.equal((await request(`${s.url}api/health`)).status, 200);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('SIGTERM during a turn records it as interrupted; a SIGKILLed server\'s turn is completed at restart', async () => {
  const tmp = makeTempDir('pulse-serve-stop-');
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws);
  const args = ['--no-tick', '--runner', 'sleep 20', '--runner-timeout', '120', '--shutdown-grace', '0.2'];
  let s = await startServer(ws, args);
  const t1 = await say(s, 'take your time');
  await waitFor(async () => (await request(`${s.url}api/health`)).body.turns_active === 1, { what: 'the turn running' });
  const { code } = await s.stop('SIGTERM');
  assert.equal(code, 0);
  let rows = pulse(['agent-log', 'show', '--workspace', ws, '--workflow', 'substack', '--run-id', t1.pulse_run_id, '--json']).json.rows;
  assert.equal(rows.length, 1);
  assert.equal(rows[0].status, 'failed');
  assert.match(rows[0].error, /interrupted: the server shut down/);

  s = await startServer(ws, args);
  const t2 = await say(s, 'and again');
  await waitFor(async () => (await request(`${s.url}api/health`)).body.turns_active === 1, { what: 'the turn running' });
  await s.stop('SIGKILL');
  rows = pulse(['agent-log', 'show', '--workspace', ws, '--workflow', 'substack', '--run-id', t2.pulse_run_id, '--json']).json.rows;
  assert.equal(rows[0].status, 'running', 'SIGKILL left the row running');
  s = await startServer(ws, args);
  try {
    const row = await turnRow(s, 'substack', t2.pulse_run_id);
    assert.equal(row.status, 'failed');
    assert.match(row.error, /recorded at restart/);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
