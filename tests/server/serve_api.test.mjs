// The JSON API against the real server: the same documents as the command
// line, the owner's actions (answer, outcome, memory edit, a message to
// Pulse) with the owner token, and the reads the Pulse tab needs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { request, startServer, makeTempDir, buildSubstack, buildHealthy, setNow, waitFor, pulse } from './helpers.mjs';

test('reads match the command line; the owner answers, records outcomes, edits memory and talks to Pulse', async () => {
  const tmp = makeTempDir('pulse-serve-api-');
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws);
  buildHealthy(ws);
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-07T12:00:00Z');
  const s = await startServer(ws, ['--no-tick', '--now-file', nowFile]);
  const owner = s.ownerToken;
  const base = `${s.url}api/workflows/substack`;
  try {
    // The goal status is exactly `pulse check --json`.
    const cli = pulse(['check', '--workspace', ws, '--workflow', 'substack', '--now', '2026-10-07T12:00:00Z', '--json']);
    assert.equal(cli.status, 0, cli.stderr);
    const status = await request(`${base}/goal-status`);
    assert.equal(status.status, 200);
    assert.deepEqual(status.body, cli.json);
    assert.equal(status.body.status, 'not_measured');

    const list = await request(`${s.url}api/workflows`);
    assert.deepEqual(list.body.workflows.map((w) => [w.name, w.status]), [['healthy', 'on_track'], ['substack', 'not_measured']]);

    const readings = await request(`${base}/readings`);
    assert.equal(readings.body.metric, 'subscribers');
    assert.equal(readings.body.readings.length, 2);
    const routes = await request(`${base}/runs-by-route`);
    assert.ok(routes.body.routes.find((r) => r.route === 'growth_funnel' && r.primary));

    // A decision with Pulse's recommendation, answered by the owner.
    const made = pulse(['decision', 'create', '--workspace', ws, '--workflow', 'substack', '--question', 'Measure in growth_funnel?',
      '--option', 'Add a measuring step', '--option', 'Not now', '--json']);
    assert.equal(made.status, 0, made.stderr);
    const id = made.json.id;
    const rec = pulse(['decision', 'recommend', '--workspace', ws, '--workflow', 'substack', '--id', String(id),
      '--option', 'Add a measuring step', '--why', 'not measured for 20 days', '--confidence', 'high']);
    assert.equal(rec.status, 0, rec.stderr);
    const later = '2027-01-01T00:00:00Z';
    const pending = await request(`${base}/decisions?status=pending&now=${later}`);
    assert.deepEqual(pending.body, pulse(['decision', 'list', '--workspace', ws, '--workflow', 'substack', '--status', 'pending',
      '--now', later, '--json']).json);
    assert.equal(pending.body.decisions.length, 1);

    // Without the token nothing changes; with it the answer is the owner's.
    assert.equal((await request(`${base}/decisions/${id}/answer`, { method: 'POST', body: { accept: true } })).status, 401);
    assert.equal((await request(`${base}/decisions?status=pending`)).body.decisions.length, 1);
    const answer = await request(`${base}/decisions/${id}/answer`, { method: 'POST', token: owner,
      body: { accept: true, note: 'go ahead', session: 'schedule-goallead--x-g1' } });
    assert.equal(answer.status, 200, answer.text);
    assert.equal((await request(`${base}/decisions?status=pending`)).body.decisions.length, 0);
    const again = await request(`${base}/decisions/${id}/answer`, { method: 'POST', token: owner, body: { accept: true } });
    assert.ok(again.status === 409 || again.status === 400, again.text);
    const unknown = await request(`${base}/decisions/999999/answer`, { method: 'POST', token: owner, body: { accept: true } });
    assert.ok(unknown.status === 404 || unknown.status === 400, unknown.text);
    const outcome = await request(`${base}/decisions/${id}/outcome`, { method: 'POST', token: owner, body: { result: 'subscribers measured again' } });
    assert.equal(outcome.status, 200, outcome.text);
    const all = await request(`${base}/decisions?status=all`);
    assert.ok(all.body.decisions[0].outcome);

    // Goal memory: the owner's answer landed there; the owner edits it.
    const memory = await request(`${base}/memory`);
    assert.equal(memory.status, 200);
    assert.match(memory.body.text, /Measure in growth_funnel/);
    const onDisk = readFileSync(join(ws, 'Workflow', 'substack', 'memory', 'goal.md'), 'utf8');
    assert.equal(memory.body.text, onDisk);
    const hash = memory.body.hash ?? memory.body.base_hash;
    const edited = `${memory.body.text}\n- 2026-10-07 [owner answer] weekly cadence is fine\n`;
    const save = await request(`${base}/memory`, { method: 'PUT', token: owner, body: { text: edited, base_hash: hash } });
    assert.equal(save.status, 200, save.text);
    assert.match(readFileSync(join(ws, 'Workflow', 'substack', 'memory', 'goal.md'), 'utf8'), /weekly cadence is fine/);
    const stale = await request(`${base}/memory`, { method: 'PUT', token: owner, body: { text: 'lost', base_hash: hash } });
    assert.equal(stale.status, 409, stale.text);
    assert.doesNotMatch(readFileSync(join(ws, 'Workflow', 'substack', 'memory', 'goal.md'), 'utf8'), /^lost$/);

    // Talk to Pulse: a background turn; the built-in runner answers from the facts.
    const msg = await request(`${base}/messages`, { method: 'POST', token: owner, body: { text: 'How is the goal doing?' } });
    assert.equal(msg.status, 202, msg.text);
    const row = await waitFor(async () => {
      const rows = (await request(`${base}/agent-log?run_id=${msg.body.turn.pulse_run_id}`)).body.rows;
      return rows.length && rows[0].status !== 'running' ? rows[0] : null;
    }, { what: 'the reply turn' });
    assert.equal(row.status, 'completed', JSON.stringify(row));
    assert.equal(row.kind, 'ask_pulse');
    assert.equal(row.session_id, msg.body.turn.session);
    const outbox = (await request(`${base}/outbox`)).body.messages;
    const reply = outbox.find((m) => m.kind === 'pulse_reply');
    assert.ok(reply);
    assert.match(reply.text, /Goal: not measured/);
    assert.equal(reply.payload.message, 'How is the goal doing?');

    // Agent-log filters.
    const bySession = await request(`${base}/agent-log?session=${encodeURIComponent(row.session_id)}`);
    assert.equal(bySession.body.rows.length, 1);
    const running = await request(`${base}/agent-log?status=running`);
    assert.equal(running.body.rows.length, 0);
    const cliLog = pulse(['agent-log', 'show', '--workspace', ws, '--workflow', 'substack', '--json']);
    assert.deepEqual((await request(`${base}/agent-log`)).body.rows, cliLog.json.rows);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('the generic method route: named reads open, other methods need the owner, server machinery never offered', async () => {
  const tmp = makeTempDir('pulse-serve-call-');
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws);
  const s = await startServer(ws, ['--no-tick']);
  const call = (method, body, token) => request(`${s.url}api/workflows/substack/call/${method}`, { method: 'POST', body, token });
  try {
    const readings = await call('goal.readings', {});
    assert.equal(readings.status, 200, readings.text);
    assert.equal(readings.body.result.metric, 'subscribers');
    const mem = await call('memory.show', {});
    assert.equal(mem.status, 200);
    // ?now= evaluates as of that time, like --now.
    const then = await request(`${s.url}api/workflows/substack/goal-status?now=2026-10-07T12:00:00Z`);
    assert.equal(then.body.checked_at, '2026-10-07T12:00:00Z');
    assert.equal((await request(`${s.url}api/workflows/substack/goal-status?now=yesterday`)).status, 400);
    // A recorded check is a write.
    assert.equal((await call('goal.check', { record: true })).status, 401);
    const recorded = await call('goal.check', { record: true }, s.ownerToken);
    assert.equal(recorded.status, 200, recorded.text);
    // Writes need the owner; nothing changes without.
    const obs = { metric: 'subscribers', value: 500, at: '2026-10-06T10:00:00Z', source: 'manual' };
    assert.equal((await call('goal.observe', obs)).status, 401);
    assert.equal((await call('goal.readings', {})).body.result.readings.length, readings.body.result.readings.length);
    assert.equal((await call('goal.observe', obs, s.ownerToken)).status, 200);
    assert.equal((await call('goal.readings', {})).body.result.readings.length, readings.body.result.readings.length + 1);
    // The server's machinery and unknown methods.
    for (const m of ['session.open', 'pulse.tool_call', 'turn.rules', 'agent_log.started']) {
      assert.equal((await call(m, { turn: 'goal_work' }, s.ownerToken)).status, 403, m);
    }
    assert.equal((await call('nope.nothing', {}, s.ownerToken)).status, 404);
    assert.equal((await call('goal.readings', undefined)).status, 200);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
