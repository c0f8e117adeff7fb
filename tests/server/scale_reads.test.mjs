// A wrong session token costs no database open: the tool route and MCP
// answer it from the server's index of token hashes, which reloads a
// workflow's hashes only when its database changed since the last lookup
// (here: a session opened by the command line, another process).
// /api/health counts the opens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request, startServer, makeTempDir, makeWorkspace, pulse, mcp, SUBSTACK_CONFIG, HEALTHY_CONFIG } from './helpers.mjs';

const NOW = '2026-10-07T12:00:00Z';

async function dbOpens(s) {
  const h = await request(`${s.url}api/health`);
  assert.equal(h.status, 200);
  assert.equal(typeof h.body.db_opens, 'number');
  return h.body.db_opens;
}

function openSession(ws, workflow) {
  const r = pulse(['session', 'open', '--workspace', ws, '--workflow', workflow, '--turn', 'goal_work', '--now', NOW]);
  assert.equal(r.status, 0, r.stderr);
  return r.json;
}

test('a wrong session token on the tool route and MCP is refused with no database opened', async () => {
  const tmp = makeTempDir('pulse-scale-token-');
  const ws = makeWorkspace(tmp.dir, { substack: SUBSTACK_CONFIG, digest: HEALTHY_CONFIG });
  const first = openSession(ws, 'substack');
  const s = await startServer(ws, ['--no-tick']);
  try {
    const wrong = 'f'.repeat(64);
    const tool = (session, token) => request(`${s.url}s/${session}/tools/custom/get_pulse_state`,
      { method: 'POST', token, body: { view: 'goal_status' } });
    // The first lookup loads the index (it may open each database once).
    assert.equal((await mcp(s.url, wrong, 'tools/list', {})).status, 401);
    const before = await dbOpens(s);
    for (let i = 0; i < 10; i++) {
      const m = await mcp(s.url, wrong, 'tools/list', {});
      assert.equal(m.status, 401, m.text);
      const t = await tool(first.session, wrong);
      assert.equal(t.status, 401, t.text);
    }
    assert.equal(await dbOpens(s), before, 'wrong tokens opened a database');

    // The right token still works, and one opened after the index was
    // loaded (by another process) is found: the database's stamp moved.
    assert.equal((await tool(first.session, first.token)).status, 200);
    const later = openSession(ws, 'digest');
    const ok = await tool(later.session, later.token);
    assert.equal(ok.status, 200, ok.text);
    assert.equal((await mcp(s.url, later.token, 'tools/list', {})).status, 200);

    // Those calls wrote to the databases (the session's use): the next
    // lookup reloads what changed, and from then on nothing is opened.
    assert.equal((await mcp(s.url, wrong, 'tools/list', {})).status, 401);
    const settled = await dbOpens(s);
    for (let i = 0; i < 5; i++) assert.equal((await mcp(s.url, wrong, 'tools/list', {})).status, 401);
    assert.equal(await dbOpens(s), settled, 'wrong tokens opened a database');
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
