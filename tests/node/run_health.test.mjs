// run_health on the Substack fixture (the case's rows, replayed by the real
// CLI): the failed growth run with its error and CONCERNS: line, the open
// issue count (open QA requests), each schedule's runs, and run folders
// whose run.json is malformed or missing, named, while the command still
// answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PULSE_BIN, makeTempDir } from './helpers.mjs';
import { makeSubstack } from '../fixtures/make_substack.mjs';

// The week the failed growth run (r-0114, 28 Sep) falls in.
const NOW = '2026-09-30T12:00:00Z';

function pulse(args) {
  const r = spawnSync(PULSE_BIN, args, { encoding: 'utf8', timeout: 30000 });
  let json;
  try { json = JSON.parse(r.stdout); } catch { json = undefined; }
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, json };
}

test('run_health on the Substack fixture: failed runs, CONCERNS: lines, open issues, schedules, unreadable folders', (t) => {
  const { dir, cleanup } = makeTempDir('pulse-run-health-');
  t.after(cleanup);
  const made = makeSubstack(dir, { pulseBin: PULSE_BIN });
  const runs = join(made.workflowDir, 'runs');
  // The failed run's steps left a CONCERNS: line in its run.json.
  const failedJson = join(runs, 'iteration-114', 'default', 'run.json');
  const run = JSON.parse(readFileSync(failedJson, 'utf8'));
  writeFileSync(failedJson, JSON.stringify({ ...run, concerns: ['CONCERNS: signup export half written'] }));
  // A folder whose run.json is not JSON, and an older one that has none.
  mkdirSync(join(runs, 'iteration-121', 'default'), { recursive: true });
  writeFileSync(join(runs, 'iteration-121', 'default', 'run.json'), '{"run_id": "r-0121", "status": ');
  mkdirSync(join(runs, 'iteration-109', 'default'), { recursive: true });
  const args = ['--workspace', made.workspace, '--workflow', 'substack', '--now', NOW];
  assert.equal(pulse(['qa', 'request', '--what', 'collect_signups times out', ...args]).status, 0);

  const r = pulse(['facts', ...args, '--json']);
  assert.equal(r.status, 0, r.stderr);
  const h = r.json.run_health;
  const failed = h.failed_runs.find((f) => f.run_id === 'r-0114');
  assert.ok(failed, JSON.stringify(h.failed_runs));
  assert.equal(failed.status, 'failed');
  assert.equal(failed.error, 'step collect_signups: timed out after 1200 s');
  assert.deepEqual(h.concerns, [{ run_id: 'r-0114', line: 'CONCERNS: signup export half written' }]);
  assert.equal(h.open_issues, 1);
  assert.deepEqual(h.schedules.map((s) => s.id).slice(0, 2), ['morning', 'afternoon']);
  const morning = h.schedules.find((s) => s.id === 'morning');
  assert.equal(morning.enabled, false);
  assert.ok(morning.runs >= 1 && morning.failed >= 1, JSON.stringify(morning));
  assert.equal(h.runs, h.completed + h.failed);
  const names = h.unreadable.map((u) => u.folder);
  assert.deepEqual(names, ['iteration-109', 'iteration-121']);
  assert.match(h.unreadable[0].line, /^unreadable: runs\/iteration-109\/default\/run\.json: missing/);
  assert.match(h.unreadable[1].line, /^unreadable: runs\/iteration-121\/default\/run\.json: /);
  assert.match(r.stderr, /runs\/iteration-121\/default\/run\.json/, 'the bad file is named on stderr');

  // The goal check's document carries the same fact, and a repaired folder
  // is no longer named.
  writeFileSync(join(runs, 'iteration-121', 'default', 'run.json'), JSON.stringify({
    run_id: 'r-0121', started_at: '2026-09-29T09:00:00Z', finished_at: '2026-09-29T09:20:00Z', status: 'error',
    trigger: 'schedule:morning', error: 'export crashed',
  }));
  const c = pulse(['check', ...args, '--json']);
  assert.equal(c.status, 0, c.stderr);
  assert.deepEqual(c.json.facts.run_health.unreadable.map((u) => u.folder), ['iteration-109']);
  assert.ok(c.json.facts.run_health.failed_runs.some((f) => f.run_id === 'r-0121' && f.error === 'export crashed'));
});
