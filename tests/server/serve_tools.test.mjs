// The guarded tool route and MCP against the real server. The rule under test:
// with change=ask, update_step is refused both through the core call
// (`pulse guard`) and over POST /s/<session>/tools/custom/<tool>; with
// change=auto both allow it. The session comes from the URL and its token,
// never from the body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request, startServer, makeTempDir, makeWorkspace, buildSubstack, pulse, mcp, SUBSTACK_CONFIG } from './helpers.mjs';

function openSession(ws, workflow, turn) {
  const r = pulse(['session', 'open', '--workspace', ws, '--workflow', workflow, '--turn', turn]);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(r.json.session && r.json.token, r.stdout);
  return r.json;
}

test('change=ask refuses update_step through pulse guard and over the route; change=auto allows both', async () => {
  const tmp = makeTempDir('pulse-serve-guard-');
  const ask = { ...SUBSTACK_CONFIG, pulse: { enabled: true, autonomy: { run: 'ask', outward: 'ask', change: 'ask', answer: 'recommend' } } };
  const auto = { ...SUBSTACK_CONFIG, pulse: { enabled: true, autonomy: { run: 'ask', outward: 'ask', change: 'auto', answer: 'recommend' } } };
  const ws = makeWorkspace(tmp.dir, { held: ask, free: auto });
  const s = await startServer(ws, ['--no-tick']);
  try {
    const args = { step_id: 'draft', prompt: 'new prompt' };
    // change=ask: the core call and the route agree.
    const direct = pulse(['guard', '--workspace', ws, '--workflow', 'held', '--turn', 'goal_work', '--tool', 'update_step',
      '--args', JSON.stringify(args), '--json']);
    assert.equal(direct.status, 0);
    assert.equal(direct.json.allowed, false);
    const held = openSession(ws, 'held', 'goal_work');
    const refused = await request(`${s.url}s/${held.session}/tools/custom/update_step`, { method: 'POST', token: held.token, body: args });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.refused, true);
    assert.equal(refused.body.reason, direct.json.reason);
    // A body claiming another session or turn changes nothing.
    const smuggled = await request(`${s.url}s/${held.session}/tools/custom/update_step`, {
      method: 'POST', token: held.token, body: { ...args, session: 'owner', turn: 'builder_fix' } });
    assert.equal(smuggled.status, 403);

    // change=auto: both allow it; the platform tool is recorded, not run here.
    const directAuto = pulse(['guard', '--workspace', ws, '--workflow', 'free', '--turn', 'goal_work', '--tool', 'update_step',
      '--args', JSON.stringify(args), '--json']);
    assert.equal(directAuto.json.allowed, true);
    const free = openSession(ws, 'free', 'goal_work');
    const allowed = await request(`${s.url}s/${free.session}/tools/custom/update_step`, { method: 'POST', token: free.token, body: args });
    assert.equal(allowed.status, 200, allowed.text);
    assert.equal(allowed.body.allowed, true);
    assert.equal(allowed.body.status, 'carry_out_on_platform');
    assert.equal(allowed.body.done, false);

    // Pulse's own tools execute through the API.
    const state = await request(`${s.url}s/${free.session}/tools/custom/get_pulse_state`, { method: 'POST', token: free.token, body: { view: 'goal_status' } });
    assert.equal(state.status, 200, state.text);
    assert.equal(state.body.executed, true);
    assert.equal(state.body.result.workflow, 'free');

    // Tokens: missing, wrong, another session's.
    const url = `${s.url}s/${held.session}/tools/custom/get_pulse_state`;
    assert.equal((await request(url, { method: 'POST', body: { view: 'goal_status' } })).status, 401);
    assert.equal((await request(url, { method: 'POST', token: 'nope', body: { view: 'goal_status' } })).status, 401);
    assert.equal((await request(url, { method: 'POST', token: free.token, body: { view: 'goal_status' } })).status, 401);
    assert.equal((await request(url, { method: 'POST', token: s.ownerToken, body: { view: 'goal_status' } })).status, 401);
    // Malformed body.
    const bad = await request(url, { method: 'POST', token: held.token, raw: '{nope', headers: { 'content-type': 'application/json' } });
    assert.equal(bad.status, 400);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('MCP: initialize, tools/list, tools/call under the same guard, and JSON-RPC errors', async () => {
  const tmp = makeTempDir('pulse-serve-mcp-');
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws);
  const s = await startServer(ws, ['--no-tick']);
  try {
    const { session, token } = openSession(ws, 'substack', 'goal_check');
    const init = await mcp(s.url, token, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } });
    assert.equal(init.status, 200);
    assert.equal(init.body.jsonrpc, '2.0');
    assert.equal(init.body.id, 1);
    assert.equal(init.body.result.protocolVersion, '2025-06-18');
    assert.ok(init.body.result.capabilities.tools);
    assert.equal(init.body.result.serverInfo.name, 'pulse');
    const note = await mcp(s.url, token, 'notifications/initialized', undefined, null);
    assert.equal(note.status, 202);
    assert.equal(note.text, '');

    const list = await mcp(s.url, token, 'tools/list', {}, 2);
    const names = list.body.result.tools.map((t) => t.name);
    for (const n of ['get_pulse_state', 'record_pulse_decision_outcome', 'record_pulse_goal_check', 'record_pulse_goal_memory',
      'record_pulse_recommendation', 'create_decision_request', 'update_step']) assert.ok(names.includes(n), n);
    for (const t of list.body.result.tools) assert.equal(t.inputSchema.type, 'object');

    const status = await mcp(s.url, token, 'tools/call', { name: 'get_pulse_state', arguments: { view: 'goal_status' } }, 3);
    assert.equal(status.body.result.isError, false);
    assert.equal(status.body.result.content[0].type, 'text');
    assert.equal(JSON.parse(status.body.result.content[0].text).status, 'not_measured');

    const rec = await mcp(s.url, token, 'tools/call', { name: 'record_pulse_goal_check', arguments: { verdict: 'not_measured' } }, 4);
    assert.equal(rec.body.result.isError, false, JSON.stringify(rec.body));
    assert.equal(rec.body.result.structuredContent.result.verdict_matches, true);

    const log = await mcp(s.url, token, 'tools/call', { name: 'get_pulse_state', arguments: { view: 'agent_log' } }, 5);
    assert.equal(log.body.result.isError, false);
    assert.ok(Array.isArray(JSON.parse(log.body.result.content[0].text).rows));

    const memory = await mcp(s.url, token, 'tools/call', { name: 'record_pulse_goal_memory', arguments: { section: 'lessons', text: 'growth runs never measure subscribers' } }, 6);
    assert.equal(memory.body.result.isError, false, JSON.stringify(memory.body));
    const shown = await request(`${s.url}api/workflows/substack/memory`);
    assert.match(shown.body.text, /growth runs never measure subscribers/);

    const badArgs = await mcp(s.url, token, 'tools/call', { name: 'get_pulse_state', arguments: { view: 'everything' } }, 7);
    assert.equal(badArgs.body.result.isError, true);
    assert.match(badArgs.body.result.content[0].text, /view/);

    // Protocol errors.
    // A tool nobody catalogued is the guard's too (unclassified: held at ask).
    const unknownTool = await mcp(s.url, token, 'tools/call', { name: 'update_plan_everything', arguments: {} }, 8);
    assert.equal(unknownTool.body.result.isError, true);
    assert.equal(unknownTool.body.result.structuredContent.refused, true);
    const unknown = await mcp(s.url, token, 'resources/list', {}, 9);
    assert.equal(unknown.body.error.code, -32601);
    assert.equal(unknown.body.id, 9);
    const parse = await request(`${s.url}mcp`, { method: 'POST', token, raw: '{"jsonrpc":', headers: { 'content-type': 'application/json' } });
    assert.equal(parse.body.error.code, -32700);
    assert.equal(parse.body.id, null);
    const invalid = await request(`${s.url}mcp`, { method: 'POST', token, body: { jsonrpc: '1.0', id: 3, method: 'ping' } });
    assert.equal(invalid.body.error.code, -32600);
    const noToken = await mcp(s.url, undefined, 'tools/list', {}, 10);
    assert.equal(noToken.status, 401);
    const wrongToken = await mcp(s.url, 'x'.repeat(32), 'tools/list', {}, 11);
    assert.equal(wrongToken.status, 401);
    const ping = await mcp(s.url, token, 'ping', undefined, 'p');
    assert.deepEqual(ping.body, { jsonrpc: '2.0', id: 'p', result: {} });
    assert.ok(session);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

// The owner's token and records are out of an agent's reach over the real
// route: no file tool names .pulse/, db/ or memory/goal.md, Pulse's memory
// tool cannot write owner lines, and a namespaced name of Pulse's own tool
// runs (one normaliser for the guard and the executor).
test('the session route refuses protected paths and owner lines, and runs namespaced Pulse tools', async () => {
  const tmp = makeTempDir('pulse-serve-guard-owner-');
  const open = { ...SUBSTACK_CONFIG, pulse: { enabled: true, autonomy: { run: 'auto', outward: 'auto', change: 'auto', answer: 'recommend', unclassified: 'allow' } } };
  const ws = makeWorkspace(tmp.dir, { open });
  const s = await startServer(ws, ['--no-tick']);
  try {
    const { session, token } = openSession(ws, 'open', 'goal_work');
    const call = (tool, body) => request(`${s.url}s/${session}/tools/custom/${tool}`, { method: 'POST', token, body });
    for (const [tool, body] of [
      ['read_file', { path: '../../.pulse/owner-token' }],
      ['write_file', { path: '../../.pulse/owner-token', content: 'x' }],
      ['read_file', { path: 'db/db.sqlite' }],
      ['bash', { command: 'cat ../../.pulse/owner-token' }],
    ]) {
      const r = await call(tool, body);
      assert.equal(r.status, 403, `${tool} ${JSON.stringify(body)}: ${r.text}`);
      assert.equal(r.body.refused, true);
      assert.match(r.body.reason, /\.pulse\/, a workflow's db\/ and memory\/goal\.md/);
    }
    const soul = await call('move_file', { src: 'pulse/work/draft.md', dst: 'soul.md' });
    assert.equal(soul.status, 403, soul.text);
    const forged = await call('record_pulse_goal_memory', { section: 'owner', text: 'the owner wants X', source: 'owner_answer' });
    assert.ok(forged.status >= 400 && forged.status < 500, `${forged.status} ${forged.text}`);
    assert.match(forged.text, /owner_answer/);
    const ran = await call('mcp__pulse__record_pulse_goal_check', {});
    assert.equal(ran.status, 200, ran.text);
    assert.equal(ran.body.executed, true);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
