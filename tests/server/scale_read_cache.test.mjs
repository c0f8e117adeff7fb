// The read routes besides the goal status (agent log, decisions, ...) are
// answered from memory while nothing they read has moved, and every write —
// another process's, or the server's own on behalf of the owner — is seen
// by the next read. /api/health counts the computations
// (reads.answer_recomputes) and the answers handed out again (answer_hits).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { request, startServer, makeTempDir, buildSubstack, pulse, waitFor } from './helpers.mjs';

async function reads(s) {
  const h = await request(`${s.url}api/health`);
  assert.equal(h.status, 200);
  return h.body.reads;
}

function cli(ws, args) {
  const r = pulse([...args, '--workspace', ws, '--workflow', 'substack']);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

test('agent-log and decisions answers from memory change when a row is written', async () => {
  const tmp = makeTempDir('pulse-scale-answers-');
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws);
  const s = await startServer(ws, ['--no-tick']);
  try {
    const get = async (path) => {
      const r = await request(`${s.url}api/workflows/substack/${path}`);
      assert.equal(r.status, 200, r.text);
      return r.text;
    };
    // Settled: asking again computes nothing (an answer that read a file
    // written within the last second is computed afresh until it is older).
    const settle = async (path) => {
      await waitFor(async () => {
        const before = (await reads(s)).answer_recomputes;
        await get(path);
        return (await reads(s)).answer_recomputes === before;
      }, { what: `${path} from memory` });
      return get(path);
    };
    // A write: the next answer differs and was computed again.
    const seen = async (path, write, check) => {
      const before = await settle(path);
      const count = (await reads(s)).answer_recomputes;
      await write();
      const after = await get(path);
      assert.ok((await reads(s)).answer_recomputes > count, `${path}: answered from memory after the write`);
      assert.notEqual(after, before, `${path}: the answer did not change`);
      check(JSON.parse(after));
    };

    const first = await settle('agent-log');
    const settled = await reads(s);
    for (let i = 0; i < 5; i++) assert.equal(await get('agent-log'), first);
    const again = await reads(s);
    assert.equal(again.answer_recomputes, settled.answer_recomputes, 'a repeated agent-log read was computed again');
    assert.ok(again.answer_hits >= settled.answer_hits + 5);
    assert.ok(again.answer_bytes >= first.length);

    // Another process writes a row (the platform's hook).
    await seen('agent-log', () => cli(ws, ['agent-log', 'started', '--session', 's-cache', '--agent', 'gate-1', '--name', 'Gate',
      '--at', '2026-10-07T11:00:00Z']), (b) => assert.ok(b.rows.some((r) => r.session_id === 's-cache')));
    // A page and its filter are answers of their own, kept and refreshed alike.
    await seen('agent-log?session=s-cache&limit=1', () => cli(ws, ['agent-log', 'completed', '--session', 's-cache',
      '--agent', 'gate-1', '--status', 'completed', '--at', '2026-10-07T11:05:00Z']),
    (b) => assert.equal(b.rows[0].status, 'completed'));

    let id;
    await seen('decisions', () => { id = cli(ws, ['decision', 'create', '--question', 'Resume the schedules?', '--option', 'Yes', '--option', 'No']).trim(); },
      (b) => assert.ok(b.decisions.some((d) => d.question === 'Resume the schedules?')));
    assert.match(id, /^\d+$/);
    // The owner's answer, written by the server itself on its own connection.
    await seen('decisions', async () => {
      const r = await request(`${s.url}api/workflows/substack/decisions/${id}/answer`, { method: 'POST', token: s.ownerToken, body: { option: 'Yes' } });
      assert.equal(r.status, 200, r.text);
    }, (b) => assert.notEqual(b.decisions.find((d) => String(d.id) === id).status, 'pending'));

    // The generic route's reads share the answers and wrap them as before.
    const wrapped = await request(`${s.url}api/workflows/substack/call/decision.list`, { method: 'POST', body: {} });
    assert.equal(wrapped.status, 200, wrapped.text);
    assert.deepEqual(wrapped.body.result, JSON.parse(await get('decisions')));
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
