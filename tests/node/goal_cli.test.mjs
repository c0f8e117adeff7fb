// The goal commands through the real `pulse` binary on a temp copy of the
// Substack fixture (the Substack case), and the same check in the real WASM
// module over the same database file: the browser must compute exactly what
// the server does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync, cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PULSE_BIN, makeTempDir, loadPulseModule } from './helpers.mjs';
import { makeSubstack, SUBSTACK_FIXTURE, SUBSTACK_CHECK_AT } from '../fixtures/make_substack.mjs';
import { openDbInModule, closeDbInModule, callInModule } from './goal_db.mjs';

const EXPECTED = JSON.parse(readFileSync(join(SUBSTACK_FIXTURE, 'expected_check_2026-10-07.json'), 'utf8'));

function pulse(args) {
  const r = spawnSync(PULSE_BIN, args, { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// The v1 check document: a check also carries the context facts and
// needs_reauth (v2; their own tests are facts_cli.test.mjs) and the
// attention items with the schedules' watch and the rank (v3; their own
// tests are attention_cli.test.mjs and tests/cpp/attention/), set aside here.
function contract(doc) {
  if (doc && doc.checked_at !== undefined) {
    assert.equal(typeof doc.needs_reauth, 'boolean');
    assert.equal(typeof doc.facts, 'object');
    assert.ok(Array.isArray(doc.attention) && Array.isArray(doc.schedules));
    assert.equal(typeof doc.rank, 'number');
    assert.equal(typeof doc.needs_attention, 'boolean');
    const { facts, needs_reauth: reauth, attention, schedules, rank, needs_attention: needs, ...rest } = doc;
    return rest;
  }
  return doc;
}

function raw(args) {
  const r = pulse([...args, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

function json(args) {
  return contract(raw(args));
}

function withSubstack(fn) {
  const { dir, cleanup } = makeTempDir('pulse-goal-');
  try {
    const made = makeSubstack(dir, { pulseBin: PULSE_BIN });
    const ws = ['--workspace', made.workspace, '--workflow', 'substack'];
    return fn({ ...made, ws, dir });
  } finally {
    cleanup();
  }
}

function writeRun(runDir, run, route) {
  mkdirSync(runDir, { recursive: true });
  if (run !== undefined) writeFileSync(join(runDir, 'run.json'), typeof run === 'string' ? run : JSON.stringify(run));
  if (route !== undefined) {
    writeFileSync(join(runDir, 'route_selection.json'), typeof route === 'string' ? route : JSON.stringify(route));
  }
}

test('pulse check on the Substack fixture prints exactly the contract example', () => {
  withSubstack(({ ws }) => {
    const doc = json(['check', ...ws, '--now', SUBSTACK_CHECK_AT]);
    assert.deepEqual(doc, EXPECTED);
    const human = pulse(['check', ...ws, '--now', SUBSTACK_CHECK_AT]);
    assert.equal(human.code, 0);
    for (const a of EXPECTED.alarms) assert.ok(human.stdout.includes(a.message), a.message);
    assert.match(human.stdout, /substack: not_measured/);
    assert.match(human.stdout, /reading from outside a run: builder_chat at 2026-10-07T08:10:00Z/);
  });
});

test('a second recorded check is quiet; a new run ends the quiet period', () => {
  withSubstack(({ ws, workflowDir }) => {
    assert.equal(json(['check', ...ws, '--now', SUBSTACK_CHECK_AT, '--record']).quiet, false);
    const second = json(['check', ...ws, '--now', '2026-10-08T12:00:00Z', '--record']);
    assert.equal(second.quiet, true);
    assert.equal(second.alarms.length, 4);
    assert.match(pulse(['check', ...ws, '--now', '2026-10-08T12:00:00Z']).stdout, /quiet: the pause was already reported/);
    const runDir = join(workflowDir, 'runs', 'iteration-121', 'default');
    writeRun(runDir, { run_id: 'r-0121', started_at: '2026-10-08T13:00:00Z', finished_at: '2026-10-08T13:30:00Z',
      status: 'completed', trigger: 'manual', error: '' }, { route: 'research' });
    const fin = json(['finalize-run', ...ws, '--run-dir', runDir, '--now', '2026-10-08T13:31:00Z']);
    assert.equal(fin.outcome, 'inserted');
    const after = json(['check', ...ws, '--now', '2026-10-08T14:00:00Z', '--record']);
    assert.equal(after.quiet, false);
    assert.deepEqual(after.alarms.map((a) => a.kind),
      ['not_measured', 'goal_work_without_reading', 'goal_work_not_completed', 'schedules_paused']);
    assert.equal(after.alarms[2].message, 'growth work has not completed for 12 days (the 11 runs since: '
      + 'publish_review ×6, research ×3, write_article ×1, one failed growth run)');
    assert.equal(json(['check', ...ws, '--now', '2026-10-08T15:00:00Z', '--record']).quiet, true);
  });
});

test('finalize-run twice changes nothing; observe records a reading the check sees', () => {
  withSubstack(({ ws, workflowDir }) => {
    const runDir = join(workflowDir, 'runs', 'iteration-120', 'default');
    const again = json(['finalize-run', ...ws, '--run-dir', runDir, '--now', '2026-10-07T13:00:00Z']);
    assert.equal(again.outcome, 'unchanged');
    assert.equal(again.schedule_runs.imported, 0);
    assert.equal(again.schedule_runs.already, 10);
    assert.deepEqual(json(['check', ...ws, '--now', SUBSTACK_CHECK_AT]), EXPECTED);
    const obs = json(['observe', ...ws, '--metric', 'subscribers', '--value', '420', '--at', '2026-10-07T11:00:00Z',
      '--source', 'workflow_run', '--run-id', 'r-0200']);
    assert.equal(obs.by_run, true);
    const doc = json(['check', ...ws, '--now', SUBSTACK_CHECK_AT]);
    assert.equal(doc.metric.value, 420);
    assert.equal(doc.metric.last_measured_by_run_at, '2026-10-07T11:00:00Z');
    assert.ok(!doc.alarms.some((a) => a.kind === 'not_measured'));
    assert.deepEqual(doc.outside_run_readings, []);
    assert.notEqual(doc.status, 'not_measured');
  });
});

test('bad input exits 2 with one line naming the file, and records nothing', () => {
  withSubstack(({ ws, workflowDir, workspace }) => {
    const before = json(['check', ...ws, '--now', SUBSTACK_CHECK_AT]);
    const runDir = join(workflowDir, 'runs', 'iteration-900', 'default');
    const good = { run_id: 'r-0900', started_at: '2026-10-07T09:00:00Z', finished_at: '2026-10-07T09:30:00Z',
      status: 'completed', trigger: 'manual', error: '' };
    const cases = [
      [undefined, { route: 'research' }, /iteration-900\/default\/run\.json: missing/],
      ['{"run_id": "r-0900", ', { route: 'research' }, /run\.json: malformed JSON/],
      [{ ...good, status: 'done' }, { route: 'research' }, /run\.json: run\.status: expected completed/],
      [{ ...good, finished_at: 'later' }, { route: 'research' }, /run\.json: run\.finished_at: /],
      [good, undefined, /route_selection\.json: missing/],
      [good, '{"route": ', /route_selection\.json: malformed JSON/],
      [good, { route: 7 }, /route_selection\.json: selection\.route: expected a string/],
    ];
    for (const [run, route, pattern] of cases) {
      rmSync(runDir, { recursive: true, force: true });
      writeRun(runDir, run, route);
      const r = pulse(['finalize-run', ...ws, '--run-dir', runDir, '--now', '2026-10-07T10:00:00Z']);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, pattern);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.equal(r.stdout, '');
    }
    assert.deepEqual(json(['check', ...ws, '--now', SUBSTACK_CHECK_AT]), before);

    // A malformed schedule-runs.json stops finalize-run and check before any write.
    rmSync(runDir, { recursive: true, force: true });
    writeRun(runDir, good, { route: 'research' });
    const sr = join(workflowDir, 'schedule-runs.json');
    const original = readFileSync(sr, 'utf8');
    writeFileSync(sr, JSON.stringify([{ run_id: 'x', started_at: 'never', finished_at: '2026-09-01T00:00:00Z',
      status: 'completed' }]));
    for (const args of [['finalize-run', ...ws, '--run-dir', runDir], ['check', ...ws, '--json']]) {
      const r = pulse([...args, '--now', SUBSTACK_CHECK_AT]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /schedule-runs\.json: \[0\]\.started_at: /);
      assert.equal(r.stderr.trim().split('\n').length, 1);
    }
    writeFileSync(sr, '[{"run_id": ');
    assert.match(pulse(['check', ...ws]).stderr, /schedule-runs\.json: malformed JSON/);
    writeFileSync(sr, original);
    assert.deepEqual(json(['check', ...ws, '--now', SUBSTACK_CHECK_AT]), before);

    // observe: a bad source or time is refused.
    const bad = pulse(['observe', ...ws, '--metric', 'subscribers', '--value', '1', '--source', 'slack']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /source: expected workflow_run, builder_chat or manual/);
    assert.equal(pulse(['observe', ...ws, '--metric', 'subscribers', '--value', '1', '--source', 'manual',
      '--at', 'yesterday']).code, 2);

    // A broken workflow.json fails its own workflow only.
    const other = join(workspace, 'Workflow', 'other');
    cpSync(workflowDir, other, { recursive: true, filter: (src) => !src.includes('/db') });
    writeFileSync(join(other, 'workflow.json'), '{"goal": ');
    const broken = pulse(['check', '--workspace', workspace, '--workflow', 'other']);
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /Workflow\/other\/workflow\.json: malformed JSON/);
    assert.deepEqual(json(['check', ...ws, '--now', SUBSTACK_CHECK_AT]), before);
  });
});

test('a workflow without a primary metric is no_goal with no alarms, exit 0', () => {
  const { dir, cleanup } = makeTempDir('pulse-goal-');
  try {
    mkdirSync(join(dir, 'Workflow', 'plain'), { recursive: true });
    writeFileSync(join(dir, 'Workflow', 'plain', 'workflow.json'), '{"schedules": []}');
    const r = pulse(['check', '--workspace', dir, '--workflow', 'plain', '--json', '--now', SUBSTACK_CHECK_AT]);
    assert.equal(r.code, 0);
    assert.deepEqual(contract(JSON.parse(r.stdout)), { workflow: 'plain', checked_at: SUBSTACK_CHECK_AT, status: 'no_goal',
      metric: null, alarms: [], outside_run_readings: [], quiet: false });
  } finally {
    cleanup();
  }
});

test('the WASM module computes exactly what the native check does, from the same database', async () => {
  const Module = await loadPulseModule();
  const { dir, cleanup } = makeTempDir('pulse-goal-');
  try {
    const made = makeSubstack(dir, { pulseBin: PULSE_BIN });
    const ws = ['--workspace', made.workspace, '--workflow', 'substack'];
    const times = [SUBSTACK_CHECK_AT, '2026-09-20T00:00:00Z', '2026-09-26T12:00:00Z', '2026-12-01T00:00:00Z'];
    const full = times.map((t) => raw(['check', ...ws, '--now', t]));
    const native = full.map(contract);
    const db = openDbInModule(Module, made.db);
    try {
      for (let i = 0; i < times.length; ++i) {
        const wasm = callInModule(Module, db, 'goal.check', {}, times[i]);
        assert.deepEqual(contract(wasm), native[i], times[i]);
        // The attention items, the schedules' watch and the rank alike.
        for (const key of ['attention', 'schedules', 'rank', 'needs_attention']) assert.deepEqual(wasm[key], full[i][key], `${times[i]} ${key}`);
      }
      assert.deepEqual(contract(callInModule(Module, db, 'goal.check', {}, SUBSTACK_CHECK_AT)), EXPECTED);
      const readings = callInModule(Module, db, 'goal.readings', {}, SUBSTACK_CHECK_AT);
      assert.equal(readings.readings.length, 4);
      assert.equal(readings.readings.filter((r) => r.by_run).length, 2);
      const routes = callInModule(Module, db, 'goal.runs_by_route', { since: '2026-09-26T10:00:00Z' }, SUBSTACK_CHECK_AT);
      assert.deepEqual(routes.routes.map((r) => [r.route, r.runs]),
        [['growth_funnel', 1], ['publish_review', 6], ['research', 2], ['write_article', 1]]);
      const due = callInModule(Module, db, 'goal.check_due', { pulse_pass_active: false, running_checks: 0, cap: 1 },
        SUBSTACK_CHECK_AT);
      assert.deepEqual(due, { due: true, report_only: true, reason: 'paused_report_only' });
      // Recording in the browser makes the next check quiet there too.
      assert.equal(callInModule(Module, db, 'goal.check', { record: true }, SUBSTACK_CHECK_AT).quiet, false);
      assert.equal(callInModule(Module, db, 'goal.check', { record: true }, '2026-10-08T12:00:00Z').quiet, true);
    } finally {
      closeDbInModule(Module, db);
    }
  } finally {
    cleanup();
  }
});
