// After-run options: the pulse_mode -> after_run migration (`pulse migrate`
// and at `pulse serve` start, every row), and what `pulse finalize-run`
// does with them: notify in code (a failure and a status change reach the
// webhook, a routine success only the dashboard), backup/publish skipped when
// the source hash matches the last one, else one housekeeping turn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { writeFileSync, readFileSync, mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, makeWorkspace, pulse, startServer, request, waitFor } from './helpers.mjs';

const LEGACY = {
  pulse: { enabled: false, autonomy: { run: 'ask' } },
  schedules: [
    { id: 'morning', cron: '0 9 * * *', enabled: true, pulse_mode: 'basic' },
    { id: 'weekly', cron: '0 6 * * 1', enabled: true, pulse_mode: 'full' },
    { id: 'quiet', cron: '0 3 * * *', enabled: false, pulse_mode: 'off' },
    { id: 'chosen', cron: '0 12 * * *', enabled: true, pulse_mode: 'basic', after_run: { backup: false, publish: false, notify: false } },
    { id: 'plain', cron: '0 18 * * *', enabled: true },
  ],
  unknown_key: { kept: [1, 2, 3] },
};

test('TestPulseModeMigratesToAfterRunOptions', { timeout: 60000 }, () => {
  const tmp = makeTempDir('pulse-migrate-');
  const ws = makeWorkspace(tmp.dir, { substack: LEGACY });
  const file = join(ws, 'Workflow', 'substack', 'workflow.json');
  mkdirSync(join(ws, 'Workflow', 'substack', 'planning'), { recursive: true });
  const changelog = join(ws, 'Workflow', 'substack', 'planning', 'changelog.jsonl');
  writeFileSync(changelog, `${JSON.stringify({ at: '2026-10-01T00:00:00Z', tool: 'update_step', steps: ['a'] })}\n`);
  writeFileSync(join(ws, 'Workflow', 'substack', 'planning', 'plan.json'), '{"steps": [{"id": "a"}]}');
  const before = pulse(['pre-run', '--workspace', ws, '--workflow', 'substack', '--json', '--now', '2026-10-07T00:00:00Z']);
  assert.equal(before.status, 0, before.stderr);

  // pulse_mode is read where after_run is absent, before any migration:
  // a run of the "off" schedule does nothing after it.
  const runDir = join(tmp.dir, 'run-q');
  mkdirSync(runDir);
  writeFileSync(join(runDir, 'run.json'), JSON.stringify({ run_id: 'q-1', started_at: '2026-10-07T03:00:00Z',
    finished_at: '2026-10-07T03:10:00Z', status: 'failed', trigger: 'schedule:quiet', error: 'boom' }));
  writeFileSync(join(runDir, 'route_selection.json'), JSON.stringify({ route: 'a' }));
  const fin = pulse(['finalize-run', '--workspace', ws, '--workflow', 'substack', '--run-dir', runDir, '--json']);
  assert.equal(fin.status, 0, fin.stderr);
  assert.deepEqual(fin.json.after_run.options, { backup: false, publish: false, notify: false });
  assert.equal(fin.json.after_run.notify.state, 'off');

  const r = pulse(['migrate', '--workspace', ws, '--workflow', 'substack', '--json']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.json.written, true);
  assert.deepEqual(r.json.migrated, ['morning', 'weekly', 'quiet']);
  assert.deepEqual(r.json.in_step, ['chosen']);
  assert.equal(r.json.pulse_kept_on, true);
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  const by = Object.fromEntries(doc.schedules.map((s) => [s.id, s]));
  const all = { backup: true, publish: true, notify: true };
  const none = { backup: false, publish: false, notify: false };
  // basic -> all three on
  assert.deepEqual(by.morning.after_run, all);
  assert.equal(by.morning.pulse_mode, 'basic');
  // the retired full -> all three on, and the workflow's own Pulse stays on
  assert.deepEqual(by.weekly.after_run, all);
  assert.equal(by.weekly.pulse_mode, 'full');
  assert.equal(doc.pulse.enabled, true);
  assert.deepEqual(doc.pulse.autonomy, { run: 'ask' });
  // off -> none
  assert.deepEqual(by.quiet.after_run, none);
  assert.equal(by.quiet.pulse_mode, 'off');
  // after_run present: it wins, and pulse_mode is kept in step with it
  assert.deepEqual(by.chosen.after_run, none);
  assert.equal(by.chosen.pulse_mode, 'off');
  // neither: untouched (the platform's default, all three on, applies)
  assert.deepEqual(by.plain, LEGACY.schedules[4]);
  assert.deepEqual(doc.unknown_key, LEGACY.unknown_key);

  // Idempotent: a second run writes nothing.
  const text = readFileSync(file, 'utf8');
  const again = pulse(['migrate', '--workspace', ws, '--workflow', 'substack', '--json']);
  assert.equal(again.status, 0, again.stderr);
  assert.equal(again.json.written, false);
  assert.equal(readFileSync(file, 'utf8'), text);
  // No plan changelog entry, so no review starts: the plan revision is the same.
  assert.equal(readFileSync(changelog, 'utf8').split('\n').filter(Boolean).length, 1);
  const after = pulse(['pre-run', '--workspace', ws, '--workflow', 'substack', '--json', '--now', '2026-10-07T00:10:00Z']);
  assert.equal(after.json.revision, before.json.revision);
  assert.equal(after.json.go, true);
  assert.equal(JSON.parse(readFileSync(join(ws, 'Workflow', 'substack', 'planning', 'workflow_review.json'), 'utf8')).reviews.length, 1);
});

test('pulse serve migrates at start; a workflow.json that is not valid is left as it is', { timeout: 60000 }, async () => {
  const tmp = makeTempDir('pulse-migrate-serve-');
  const ws = makeWorkspace(tmp.dir, { substack: { schedules: [{ id: 'd', cron: '0 9 * * *', pulse_mode: 'off' }] } });
  const s = await startServer(ws, ['--no-tick']);
  try {
    const doc = JSON.parse(readFileSync(join(ws, 'Workflow', 'substack', 'workflow.json'), 'utf8'));
    assert.deepEqual(doc.schedules[0].after_run, { backup: false, publish: false, notify: false });
    const state = (await request(`${s.url}api/workflows/substack/workflow-review`)).body;
    assert.deepEqual(state.after_run.schedules[0].after_run, { backup: false, publish: false, notify: false });
    assert.equal(state.after_run.schedules[0].from, 'after_run');
  } finally {
    await s.stop();
  }
  const bad = pulse(['migrate', '--workspace', ws, '--workflow', 'substack']);
  assert.equal(bad.status, 0);
  writeFileSync(join(ws, 'Workflow', 'substack', 'workflow.json'), '{"schedules": [{"id": "d", "pulse_mode": "sometimes"}]}');
  const refused = pulse(['migrate', '--workspace', ws, '--workflow', 'substack']);
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /schedules\[0\]\.pulse_mode: expected "basic", "full" or "off", got "sometimes"/);
});

// A loopback webhook that records every delivery.
async function webhook() {
  const got = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => { got.push(JSON.parse(body)); res.writeHead(200); res.end('{}'); });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { got, url: `http://127.0.0.1:${server.address().port}/hook`, close: () => new Promise((r) => server.close(r)) };
}

// The housekeeping runner: records each asked-for action as done.
const HOUSEKEEPER = `
import { readFileSync } from 'node:fs';
const input = JSON.parse(readFileSync(0, 'utf8'));
if (input.turn.kind === 'housekeeping') {
  for (const action of input.context.actions) {
    const r = await fetch(process.env.PULSE_TOOL_URL + 'record_housekeeping', { method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.MCP_API_TOKEN },
      body: JSON.stringify({ action, done: true, note: 'copied' }) });
    console.log(action + ' ' + r.status);
  }
  // Anything else is refused in a housekeeping turn.
  const other = await fetch(process.env.PULSE_TOOL_URL + 'update_step', { method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + process.env.MCP_API_TOKEN },
    body: JSON.stringify({ step: 'a' }) });
  console.log('update_step ' + other.status);
}
`;

function finalize(ws, tmp, run) {
  const dir = join(tmp.dir, 'runs', run.run_id);
  mkdirSync(dir, { recursive: true });
  const started = run.finished_at.replace('09:30:00Z', '09:00:00Z');
  writeFileSync(join(dir, 'run.json'), JSON.stringify({ trigger: 'schedule:daily', error: '', started_at: started, ...run }));
  writeFileSync(join(dir, 'route_selection.json'), JSON.stringify({ route: 'publish' }));
  const r = pulse(['finalize-run', '--workspace', ws, '--workflow', 'digest', '--run-dir', dir, '--json']);
  assert.equal(r.status, 0, r.stderr);
  return r.json.after_run;
}

test('finalize-run: failures and status changes reach the webhook, a routine success only the dashboard; backup skipped while the source is unchanged', { timeout: 120000 }, async () => {
  const hook = await webhook();
  const tmp = makeTempDir('pulse-after-run-');
  const ws = makeWorkspace(tmp.dir, { digest: {
    pulse: { enabled: true, notify: { webhook_url: hook.url } },
    schedules: [{ id: 'daily', cron: '0 9 * * *', enabled: true, after_run: { backup: true, publish: false, notify: true } }],
  } });
  const wfDir = join(ws, 'Workflow', 'digest');
  mkdirSync(join(wfDir, 'planning'), { recursive: true });
  writeFileSync(join(wfDir, 'planning', 'plan.json'), '{"steps": [{"id": "a"}]}');
  writeFileSync(join(tmp.dir, 'keeper.mjs'), HOUSEKEEPER);
  try {
    let a = finalize(ws, tmp, { run_id: 'd-1', finished_at: '2026-10-01T09:30:00Z', status: 'completed' });
    assert.equal(a.notify.state, 'dashboard');
    assert.equal(a.notify.why, 'routine success');
    assert.equal(a.backup.state, 'requested');
    assert.equal(a.publish.state, 'off');
    assert.equal(finalize(ws, tmp, { run_id: 'd-1', finished_at: '2026-10-01T09:30:00Z', status: 'completed' }).already, true);
    a = finalize(ws, tmp, { run_id: 'd-2', finished_at: '2026-10-02T09:30:00Z', status: 'failed', error: 'API quota' });
    assert.equal(a.notify.state, 'channels');
    assert.equal(a.backup.state, 'skipped');
    a = finalize(ws, tmp, { run_id: 'd-3', finished_at: '2026-10-03T09:30:00Z', status: 'completed' });
    assert.equal(a.notify.state, 'channels');
    assert.equal(a.notify.why, 'status changed from failed to completed');

    // The server delivers the outbox and runs the one housekeeping turn.
    const s = await startServer(ws, ['--tick-seconds', '0.2', '--runner', `node ${join(tmp.dir, 'keeper.mjs')}`,
      '--sandbox-allow-read', join(tmp.dir, 'keeper.mjs')]);
    try {
      await waitFor(() => hook.got.length >= 2, { timeoutMs: 30000, what: 'two webhook deliveries' });
      const state = await waitFor(async () => {
        const b = (await request(`${s.url}api/workflows/digest/workflow-review`)).body;
        return b.housekeeping.length && b.housekeeping[0].state === 'done' ? b : null;
      }, { timeoutMs: 60000, what: 'the housekeeping turn' });
      assert.equal(state.housekeeping[0].run_id, 'd-1');
      assert.deepEqual(state.run_summaries.map((x) => [x.run_id, x.to_channels]).sort(),
        [['d-1', false], ['d-2', true], ['d-3', true]]);
      // The turn's runner printed each tool call's HTTP status: the backup
      // receipt taken, anything else refused in a housekeeping turn.
      const rows = (await request(`${s.url}api/workflows/digest/agent-log`)).body.rows.filter((r) => r.kind === 'housekeeping');
      assert.equal(rows.length, 1, JSON.stringify(rows));
      assert.match(rows[0].result, /backup 200/);
      assert.match(rows[0].result, /update_step 403/);
    } finally {
      await s.stop();
    }
    const delivered = hook.got.map((b) => [b.message.kind, b.message.payload.run_id]);
    assert.deepEqual(delivered, [['run_summary', 'd-2'], ['run_summary', 'd-3']], 'the routine success is not sent');
    assert.match(hook.got[0].message.text, /failed; the run before completed\. Error: API quota/);

    // Same source as the recorded backup: skipped in code, no turn asked for.
    a = finalize(ws, tmp, { run_id: 'd-4', finished_at: '2026-10-04T09:30:00Z', status: 'completed' });
    assert.equal(a.backup.state, 'skipped');
    assert.equal(a.backup.why, 'the source is unchanged since the last backup');
    assert.equal(a.housekeeping_request, undefined);
    // The plan changed: the backup is asked for again.
    writeFileSync(join(wfDir, 'planning', 'plan.json'), '{"steps": [{"id": "a"}, {"id": "b"}]}');
    a = finalize(ws, tmp, { run_id: 'd-5', finished_at: '2026-10-05T09:30:00Z', status: 'completed' });
    assert.equal(a.backup.state, 'requested');
    assert.equal(a.backup.why, 'the source changed');
    assert.ok(existsSync(join(wfDir, 'workflow.json')));
  } finally {
    await hook.close();
  }
});
