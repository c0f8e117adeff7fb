// Data that must never poison a database, against the real `pulse serve`: a
// runner whose output is cut inside a UTF-8 character, bad bytes already
// stored in the agent log, and a workflow.json holding 1e400 beside healthy
// workflows while the tick runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import {
  request, startServer, makeTempDir, makeWorkspace, setNow, waitFor, pulse, HEALTHY_CONFIG,
} from './helpers.mjs';

test('a runner whose output ends inside a character leaves a readable agent log', async () => {
  const tmp = makeTempDir('pulse-serve-data-');
  const ws = makeWorkspace(tmp.dir, { healthy: HEALTHY_CONFIG });
  // 3999 ASCII bytes and a euro sign: the server keeps 4000 bytes of output,
  // which falls inside the euro sign. (Output that is not UTF-8 at all fails
  // its turn: tests/server/conversation.test.mjs.)
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-07T12:00:00Z');
  const s = await startServer(ws, ['--tick-seconds', '0.2', '--now-file', nowFile,
    '--runner', "printf '%03999d\\342\\202\\254tail' 0", '--runner-timeout', '60']);
  try {
    const row = await waitFor(async () => {
      const r = await request(`${s.url}api/workflows/healthy/agent-log`);
      assert.equal(r.status, 200, r.text);
      const rows = r.body.rows.filter((x) => x.kind === 'goal_check');
      return rows.length && rows[0].status !== 'running' ? rows[0] : null;
    }, { what: 'the goal check turn' });
    assert.equal(row.status, 'completed', JSON.stringify(row).slice(0, 300));
    // Cut before the euro sign, never inside it, and nothing to repair.
    assert.equal(row.result, `${'0'.repeat(3999)}…`);
    assert.ok(!row.result.includes('\uFFFD'));
    const cli = pulse(['agent-log', 'show', '--workspace', ws, '--workflow', 'healthy', '--json']);
    assert.equal(cli.status, 0, cli.stderr);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('bad bytes stored in the agent log are served repaired, not as a 500', async () => {
  const tmp = makeTempDir('pulse-serve-data-');
  const ws = makeWorkspace(tmp.dir, { healthy: HEALTHY_CONFIG });
  const base = ['--workspace', ws, '--workflow', 'healthy'];
  assert.equal(pulse(['agent-log', 'started', ...base, '--session', 's1', '--agent', 'a1']).status, 0);
  const dbPath = join(ws, 'Workflow', 'healthy', 'db', 'db.sqlite');
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(dbPath));
  db.run("UPDATE background_agent_log SET result = CAST(X'646F6E6520E282' AS TEXT), error = CAST(X'FF' AS TEXT)");
  writeFileSync(dbPath, db.export());
  db.close();
  const s = await startServer(ws, ['--no-tick']);
  try {
    const r = await request(`${s.url}api/workflows/healthy/agent-log`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.rows[0].result, 'done \uFFFD');
    assert.equal(r.body.rows[0].error, '\uFFFD');
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('1e400 in one workflow.json stops only that workflow; the tick goes on for the others', async () => {
  const tmp = makeTempDir('pulse-serve-data-');
  const ws = makeWorkspace(tmp.dir, { healthy: HEALTHY_CONFIG });
  mkdirSync(join(ws, 'Workflow', 'overflow'));
  writeFileSync(join(ws, 'Workflow', 'overflow', 'workflow.json'),
    '{"pulse": {"enabled": true}, "goal": {"primary_metric": {"name": "m", "target": 1e400}}}');
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-07T12:00:00Z');
  const s = await startServer(ws, ['--tick-seconds', '0.2', '--now-file', nowFile]);
  try {
    const start = (await request(`${s.url}api/health`)).body.ticks;
    await waitFor(async () => (await request(`${s.url}api/health`)).body.ticks >= start + 3, { what: 'three ticks' });
    // The healthy workflow got its daily goal check from the tick.
    await waitFor(async () => {
      const rows = (await request(`${s.url}api/workflows/healthy/agent-log`)).body.rows;
      return rows.some((r) => r.kind === 'goal_check' && r.status !== 'running');
    }, { what: 'the healthy workflow\'s goal check' });
    const bad = await request(`${s.url}api/workflows/overflow/goal-status`);
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /overflow\/workflow\.json: malformed JSON at byte \d+: number overflow parsing '1e400'/);
    const listed = (await request(`${s.url}api/workflows`)).body.workflows;
    assert.match(listed.find((w) => w.name === 'overflow').error, /1e400/);
    assert.equal((await request(`${s.url}api/workflows/healthy/goal-status`)).status, 200);
    assert.equal(s.proc.exitCode, null, 'the server is still running');
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
