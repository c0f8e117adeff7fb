// The scheduler tick against the real server with an injected clock
// (--now-file): the daily goal check starts once a day per workflow with a
// goal, runs through the built-in rules runner, leaves one agent-log row,
// one batched decision and one pulse_summary in the outbox (POSTed to the
// webhook), and a restart on the same day starts no second check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import {
  request, startServer, makeTempDir, makeWorkspace, buildSubstack, buildHealthy, setNow, waitFor,
  SUBSTACK_CONFIG, HEALTHY_CONFIG,
} from './helpers.mjs';

async function agentLog(s, wf, q = '') {
  const r = await request(`${s.url}api/workflows/${wf}/agent-log${q}`);
  assert.equal(r.status, 200, r.text);
  return r.body.rows;
}
const checks = (rows) => rows.filter((r) => r.kind === 'goal_check');
async function ticksPass(s, n = 3) {
  const start = (await request(`${s.url}api/health`)).body.ticks;
  await waitFor(async () => (await request(`${s.url}api/health`)).body.ticks >= start + n, { what: `${n} ticks` });
}

test('the tick runs one daily goal check per workflow, raises one decision and one message, and not twice a day', async () => {
  const tmp = makeTempDir('pulse-serve-tick-');
  const received = [];
  const hook = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => { received.push(JSON.parse(body)); res.end('ok'); });
  });
  await new Promise((r) => hook.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${hook.address().port}/pulse-hook`;
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws, 'substack', { ...SUBSTACK_CONFIG, pulse: { ...SUBSTACK_CONFIG.pulse, notify: { webhook_url: hookUrl } } });
  buildHealthy(ws);
  makeWorkspace(tmp.dir, { nogoal: { pulse: { enabled: true } } });
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-07T12:00:00Z');
  const args = ['--tick-seconds', '0.2', '--now-file', nowFile];
  let s = await startServer(ws, args);
  try {
    const sub = await waitFor(async () => {
      const rows = checks(await agentLog(s, 'substack'));
      return rows.length && rows[0].status !== 'running' ? rows : null;
    }, { what: 'the substack goal check' });
    assert.equal(sub.length, 1);
    assert.equal(sub[0].status, 'completed', JSON.stringify(sub[0]));
    assert.match(sub[0].pulse_run_id, /^pr-/);
    assert.equal(sub[0].started_at, '2026-10-07T12:00:00Z');
    assert.match(sub[0].result, /Substack Pulse: not measured/);

    const healthy = await waitFor(async () => {
      const rows = checks(await agentLog(s, 'healthy'));
      return rows.length && rows[0].status !== 'running' ? rows : null;
    }, { what: 'the healthy goal check' });
    assert.equal(healthy[0].status, 'completed');
    assert.match(healthy[0].result, /on track/);

    // Substack: one batched decision raised by Pulse, with a recommendation.
    const pending = (await request(`${s.url}api/workflows/substack/decisions?status=pending`)).body.decisions;
    assert.equal(pending.length, 1);
    assert.match(pending[0].question, /Substack Pulse: the goal is not measured/);
    assert.ok(pending[0].recommendation, 'the decision carries the recommendation');
    assert.match(pending[0].recommendation.why, /not measured by a workflow run for 20 days/);
    // One pulse_summary, delivered to the webhook.
    const outbox = (await request(`${s.url}api/workflows/substack/outbox`)).body.messages;
    assert.equal(outbox.length, 1);
    assert.equal(outbox[0].kind, 'pulse_summary');
    assert.equal(outbox[0].pulse_run_id, sub[0].pulse_run_id);
    await waitFor(() => received.length >= 1, { what: 'the webhook POST' });
    assert.equal(received[0].workflow, 'substack');
    assert.equal(received[0].message.kind, 'pulse_summary');
    await waitFor(async () => (await request(`${s.url}api/workflows/substack/outbox`)).body.messages[0].delivered_at,
      { what: 'delivery recorded' });
    // Healthy: recorded and stopped — no decision, no message.
    assert.equal((await request(`${s.url}api/workflows/healthy/decisions?status=all`)).body.decisions.length, 0);
    assert.equal((await request(`${s.url}api/workflows/healthy/outbox`)).body.messages.length, 0);
    // No goal, no check.
    assert.equal(checks(await agentLog(s, 'nogoal')).length, 0);

    // Later the same day: no second check.
    setNow(nowFile, '2026-10-07T18:00:00Z');
    await ticksPass(s);
    assert.equal(checks(await agentLog(s, 'substack')).length, 1);
    assert.equal(checks(await agentLog(s, 'healthy')).length, 1);

    // A restart on the same day picks up where it left off.
    assert.equal((await s.stop()).code, 0);
    s = await startServer(ws, args);
    await ticksPass(s);
    assert.equal(checks(await agentLog(s, 'substack')).length, 1);
    assert.equal(checks(await agentLog(s, 'healthy')).length, 1);

    // The next day: one more check each, but no second decision while
    // Pulse's first is still pending.
    setNow(nowFile, '2026-10-08T12:00:00Z');
    const next = await waitFor(async () => {
      const rows = checks(await agentLog(s, 'substack'));
      return rows.length === 2 && rows[1].status !== 'running' ? rows : null;
    }, { what: 'the next day\'s check' });
    assert.equal(next[1].started_at, '2026-10-08T12:00:00Z');
    assert.match(next[1].result, /Still waiting on you/);
    assert.equal((await request(`${s.url}api/workflows/substack/decisions?status=pending`)).body.decisions.length, 1);
    await waitFor(async () => checks(await agentLog(s, 'healthy')).length === 2, { what: 'healthy next day' });
    assert.equal((await request(`${s.url}api/workflows/substack/outbox`)).body.messages.length, 2);
  } finally {
    await s.stop();
    hook.close();
    tmp.cleanup();
  }
});

test('with answer=act the tick applies a due safe default and records it', async () => {
  const tmp = makeTempDir('pulse-serve-act-');
  const ws = join(tmp.dir, 'ws');
  const config = {
    ...SUBSTACK_CONFIG,
    pulse: { enabled: true, autonomy: { run: 'auto', outward: 'ask', change: 'auto', answer: 'act' } },
  };
  buildSubstack(ws, 'substack', config);
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-07T12:00:00Z');
  const s = await startServer(ws, ['--tick-seconds', '0.2', '--now-file', nowFile]);
  try {
    const pending = await waitFor(async () => {
      const d = (await request(`${s.url}api/workflows/substack/decisions?status=pending`)).body.decisions;
      return d.length ? d : null;
    }, { what: 'the decision' });
    const rec = pending[0].recommendation;
    assert.ok(rec.safe_default_by, `a safe default was set: ${JSON.stringify(rec)}`);
    // Past the safe default's time, nobody answered: the tick applies it.
    setNow(nowFile, '2026-10-10T12:00:00Z');
    const applied = await waitFor(async () => {
      const rows = await agentLog(s, 'substack');
      // The row is written running first, then completed: wait for its end.
      return rows.find((r) => r.kind === 'apply_due_defaults' && r.status !== 'running');
    }, { what: 'the applied safe default' });
    assert.equal(applied.status, 'completed');
    const all = (await request(`${s.url}api/workflows/substack/decisions?status=all`)).body.decisions;
    const d = all.find((x) => x.id === pending[0].id);
    assert.notEqual(d.status, 'pending');
    assert.ok(d.answer, 'answered by Pulse');
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
