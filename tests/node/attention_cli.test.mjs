// The attention model on the command line, on the demo workspace as
// scripts/run.sh makes it: `pulse status` names the clock it judges on (the
// demo's .pulse/demo-now, as the Pulse tab does) and flags inbox, whose goal
// is on track while its Gmail login expired, its error rate and cost spiked
// and today's scheduled run did not come; `pulse check --fail-on` takes
// attention kinds as well as statuses (a cron alert catches inbox), refuses
// an empty or unknown value with "did you mean", and a workflow's own folder
// given as the workspace is a clear error.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDemo, makeTempDir, PULSE_BIN, WASM_DIR } from './helpers.mjs';
import { fileNeed, missingOf, skipUnless } from '../strict.mjs';

const opts = {
  skip: skipUnless(import.meta.url, missingOf([fileNeed(PULSE_BIN, 'run scripts/setup.sh'),
    fileNeed(join(WASM_DIR, 'pulse.wasm'), 'run scripts/setup.sh (the demo writes its cost ledger with it)')])),
};
let tmp;
let ws;
let demoNow;

before(() => {
  if (opts.skip) return;
  tmp = makeTempDir('pulse-attention-cli-');
  ws = join(tmp.dir, 'demo');
  makeDemo(ws);
  demoNow = readFileSync(join(ws, '.pulse', 'demo-now'), 'utf8').trim();
});

after(() => { if (tmp) tmp.cleanup(); });

function pulse(...args) {
  const r = spawnSync(PULSE_BIN, args, { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('pulse status on the demo: its clock named, inbox flagged though on track, worst first', opts, () => {
  const table = pulse('status', '--workspace', ws);
  assert.equal(table.code, 0, table.err);
  const lines = table.out.trim().split('\n');
  assert.equal(lines[0], `On the demo clock: ${demoNow} (${ws}/.pulse/demo-now; --now for another time, or delete the file).`);
  assert.deepEqual(lines.slice(2).map((l) => l.split(/\s+/)[0]), ['substack', 'inbox', 'digest']);
  assert.match(lines[3], /^inbox\s+on_track\s+.*critical: Needs re-auth: re-connect what run r-\d+ uses \(invalid_grant .*\(\+3 more\)$/);
  assert.match(lines[4], /^digest\s+on_track\s+\S+ \/ 500\s+\d+\s+-$/, 'the healthy workflow needs nothing');

  const doc = JSON.parse(pulse('status', '--workspace', ws, '--json').out);
  assert.deepEqual(doc.clock, { now: demoNow, source: `the demo clock in ${ws}/.pulse/demo-now` });
  const inbox = doc.workflows.find((w) => w.workflow === 'inbox');
  assert.equal(inbox.status, 'on_track');
  assert.equal(inbox.rank, 1);
  assert.equal(inbox.needs_attention, true);
  assert.deepEqual(inbox.attention.map((a) => [a.kind, a.severity]),
    [['needs_reauth', 'critical'], ['error_rate_spike', 'warning'], ['cost_spike', 'warning'], ['schedule_late', 'warning']]);
  assert.equal(inbox.attention[1].text, '4 of 11 runs failed since 30 Sep (36%, against 0% on the median day of the last 14).');
  assert.match(inbox.attention[2].text, /^Run r-0010 cost \$3\.20, 4\.0× the 14-day median run \(\$0\.80\), on route reply\.$/);
  assert.equal(inbox.attention[3].text, 'Schedule daily (0 8 * * *, UTC) was expected to run at 7 Oct 08:00 UTC and has not; next expected 8 Oct 08:00 UTC.');
  for (const a of inbox.attention) assert.match(a.link, /^#\/w\/inbox\/[a-z-]+$/);
  const digest = doc.workflows.find((w) => w.workflow === 'digest');
  assert.deepEqual(digest.attention, []);
  assert.equal(digest.needs_attention, false);
  // --now still wins over the demo's clock, and says so.
  assert.match(pulse('status', '--workspace', ws, '--now', '2026-10-08T12:00:00Z').out, /^At a set time: 2026-10-08T12:00:00Z \(--now\)\./);
});

test('--fail-on takes attention kinds: the cron alert catches inbox; empty and unknown values are refused', opts, () => {
  const check = ['check', '--workspace', ws, '--workflow', 'inbox'];
  assert.equal(pulse(...check, '--fail-on', 'not_measured,off_track,at_risk').code, 0, 'its goal status alone says nothing is wrong');
  const caught = pulse(...check, '--fail-on', 'not_measured,off_track,needs_reauth,schedule_late');
  assert.equal(caught.code, 1);
  assert.match(caught.err, /^pulse: inbox needs attention: needs_reauth, schedule_late \(--fail-on\)$/m);
  assert.match(caught.out, /needs attention:\n\s+- critical needs_reauth: Needs re-auth/);
  const all = pulse('status', '--workspace', ws, '--fail-on', 'cost_spike');
  assert.equal(all.code, 1);
  assert.match(all.err, /pulse: inbox needs attention: cost_spike \(--fail-on\)/);
  assert.doesNotMatch(all.err, /digest/);

  for (const cmd of [check, ['status', '--workspace', ws]]) {
    const empty = pulse(...cmd, '--fail-on', '');
    assert.equal(empty.code, 2, `${cmd[0]} --fail-on ''`);
    assert.match(empty.err, /--fail-on: empty; give goal statuses or attention kinds, comma-separated \(off_track, .*decision_waiting\)/);
    const near = pulse(...cmd, '--fail-on', 'not-measured');
    assert.equal(near.code, 2);
    assert.match(near.err, /--fail-on: "not-measured" is not a goal status or an attention kind; did you mean "not_measured"\?/);
    const kind = pulse(...cmd, '--fail-on', 'off_track,needs-reauth');
    assert.match(kind.err, /did you mean "needs_reauth"\?/);
    assert.equal(pulse(...cmd, '--fail-on', 'off_track,').code, 2, 'an empty item');
  }
});

test('a workflow folder given as the workspace is a clear error, not "no workflows"', opts, () => {
  const folder = join(ws, 'Workflow', 'substack');
  const status = pulse('status', '--workspace', folder);
  assert.equal(status.code, 2);
  assert.equal(status.err.trim(), `pulse: --workspace ${folder}: this is a workflow's folder (it holds workflow.json), not a workspace; ` +
    `use --workspace ${ws} --workflow substack`);
  const check = pulse('check', '--workspace', folder, '--workflow', 'substack');
  assert.equal(check.code, 2);
  assert.match(check.err, /this is a workflow's folder/);
});
