// The command line as a person and a cron job meet it: `pulse status` over a
// whole workspace, `pulse check --fail-on`, "did you mean" for mistyped
// commands and flags, errors that point to the command's own --help, an
// unknown workflow that lists the ones there are, refused filter values,
// help texts (one example, the exit codes, no CLI11 noise), --now-file and
// `pulse info` without the core's method list unless asked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, PULSE_BIN } from './helpers.mjs';
import { fileNeed, missingOf, skipUnless } from '../strict.mjs';
import { makeSubstack, SUBSTACK_CHECK_AT } from '../fixtures/make_substack.mjs';

const opts = { skip: skipUnless(import.meta.url, missingOf([fileNeed(PULSE_BIN, 'run scripts/setup.sh')])) };
let tmp;
let ws;

before(() => {
  if (opts.skip) return;
  tmp = makeTempDir('pulse-cli-ux-');
  ws = makeSubstack(tmp.dir, { pulseBin: PULSE_BIN }).workspace;
  // A second workflow without a goal, named to sort before "substack".
  mkdirSync(join(ws, 'Workflow', 'alpha'), { recursive: true });
  writeFileSync(join(ws, 'Workflow', 'alpha', 'workflow.json'), JSON.stringify({ pulse: { enabled: true } }));
});

after(() => { if (tmp) tmp.cleanup(); });

function pulse(...args) {
  const r = spawnSync(PULSE_BIN, args, { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const at = ['--now', SUBSTACK_CHECK_AT];

test('pulse status: every workflow of the workspace, worst first, as a table and as JSON', opts, () => {
  const json = pulse('status', '--workspace', ws, ...at, '--json');
  assert.equal(json.code, 0, json.err);
  const doc = JSON.parse(json.out);
  assert.equal(doc.checked_at, SUBSTACK_CHECK_AT);
  assert.deepEqual(doc.workflows.map((w) => [w.workflow, w.status]), [['substack', 'not_measured'], ['alpha', 'no_goal']]);
  const s = doc.workflows[0];
  assert.equal(s.metric.value, 412);
  assert.equal(s.worst_alarm, 'not measured by a workflow run for 20 days (last reading 17 Sep)');
  assert.equal(s.alarms, 4);
  assert.equal(typeof s.pending_decisions, 'number');
  const table = pulse('status', '--workspace', ws, ...at);
  assert.equal(table.code, 0, table.err);
  const lines = table.out.trim().split('\n');
  assert.equal(lines[0], `At a set time: ${SUBSTACK_CHECK_AT} (--now).`, 'the clock it judges on, named');
  assert.match(lines[1], /^WORKFLOW\s+STATUS\s+KEY NUMBER\s+PENDING\s+NEEDS ATTENTION/);
  assert.match(lines[2], /^substack\s+not_measured\s+412 \/ 1000\s+\d+\s+critical: Not measured by a workflow run for 20 days/);
  assert.match(lines[3], /^alpha\s+no_goal/);
  // The cron form: alert when any workflow is in a bad state.
  assert.equal(pulse('status', '--workspace', ws, ...at, '--fail-on', 'off_track,not_measured').code, 1);
  assert.equal(pulse('status', '--workspace', ws, ...at, '--fail-on', 'off_track').code, 0);
});

test('pulse check --fail-on: exit 1 on a listed status, 0 by default, 2 for a status that does not exist', opts, () => {
  const base = ['check', '--workspace', ws, '--workflow', 'substack', ...at];
  const plain = pulse(...base);
  assert.equal(plain.code, 0, plain.err);
  const failing = pulse(...base, '--fail-on', 'not_measured,off_track');
  assert.equal(failing.code, 1);
  assert.match(failing.out, /substack: not_measured/);
  assert.match(failing.err, /substack is not_measured \(--fail-on\)/);
  assert.equal(pulse(...base, '--fail-on', 'off_track', '--json').code, 0);
  const bad = pulse(...base, '--fail-on', 'not_measured,bogus');
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--fail-on: "bogus" is not a goal status or an attention kind/);
});

test('a mistyped command or flag gets "did you mean" and the command\'s own --help', opts, () => {
  const cmd = pulse('chek', '--workspace', ws);
  assert.equal(cmd.code, 2);
  assert.match(cmd.err, /unknown command "chek" for pulse; did you mean "check"\? \(see pulse --help\)/);
  const sub = pulse('decision', 'lst', '--workspace', ws);
  assert.equal(sub.code, 2);
  assert.match(sub.err, /did you mean "list"\? \(see pulse decision --help\)/);
  const flag = pulse('check', '--workspace', ws, '--wrkflow', 'substack');
  assert.equal(flag.code, 2);
  assert.match(flag.err, /unknown flag --wrkflow for pulse check; did you mean --workflow\? \(see pulse check --help\)/);
  const missing = pulse('check', '--workspace', ws);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /--workflow is required \(see pulse check --help\)/);
});

test('an unknown workflow lists the workflows there are', opts, () => {
  const r = pulse('check', '--workspace', ws, '--workflow', 'substak');
  assert.equal(r.code, 2);
  assert.match(r.err, /--workflow substak: no such workflow in .* \(the workflows: alpha, substack\)/);
});

test('agent-log show --status refuses a status that does not exist', opts, () => {
  const r = pulse('agent-log', 'show', '--workspace', ws, '--workflow', 'substack', '--status', 'bogus');
  assert.equal(r.code, 2);
  assert.match(r.err, /--status/);
  assert.match(r.err, /bogus/);
  assert.match(r.err, /see pulse agent-log show --help/);
  assert.equal(pulse('agent-log', 'show', '--workspace', ws, '--workflow', 'substack', '--status', 'stuck').code, 0);
});

test('a seconds flag refuses a value that is not a finite number (CLI11\'s range alone lets "nan" through)', opts, () => {
  for (const [flag, value] of [['--tick-seconds', 'nan'], ['--import-seconds', 'NaN'], ['--header-timeout', '-nan'],
    ['--review-wait', 'inf'], ['--tick-seconds', '1e400'], ['--shutdown-grace', 'abc']]) {
    // The workspace does not exist: were the flag taken, serve would fail on that instead.
    const r = pulse('serve', '--workspace', join(tmp.dir, 'none'), '--port', '0', flag, value);
    assert.equal(r.code, 2, `${flag} ${value}: ${r.err}`);
    assert.equal(r.err, `pulse: ${flag}: Value ${value} is not a finite number (see pulse serve --help)\n`);
  }
  const range = pulse('serve', '--workspace', join(tmp.dir, 'none'), '--tick-seconds', '0.01');
  assert.equal(range.code, 2);
  assert.match(range.err, /--tick-seconds: Value 0\.01 not in range/);
  for (const args of [['ask', '--runner-timeout', 'nan'], ['pre-run', '--wait-seconds', 'nan']]) {
    const r = pulse(...args, '--workspace', ws, '--workflow', 'substack');
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, /Value nan is not a finite number/);
  }
});

// Every command path under `pulse`, read from the help texts themselves
// (the "Subcommands:" list of each), so a command added later is checked too.
function commandTree(path = []) {
  const out = pulse(...path, '--help').out;
  const list = /\nSubcommands:\n([\s\S]*?)(?:\n\n|$)/.exec(out);
  if (!list) return [path];
  const subs = list[1].split('\n').map((l) => /^ {2}([a-z][a-z-]*)\s/.exec(l)).filter(Boolean).map((m) => m[1]);
  return [path, ...subs.flatMap((s) => commandTree([...path, s]))];
}

test('help texts: every command has plain flags, one example and the exit codes', opts, () => {
  const paths = commandTree();
  assert.ok(paths.length > 30, `only ${paths.length} commands found`);
  for (const cmd of paths) {
    const name = ['pulse', ...cmd].join(' ');
    const r = pulse(...cmd, '--help');
    assert.equal(r.code, 0, `${name}: ${r.err}`);
    const examples = r.out.match(/\nExample:\n {2}pulse [^\n]+/g) || [];
    assert.equal(examples.length, 1, `${name} --help has ${examples.length} examples`);
    // The example is this command (or, for a group, one of its commands).
    assert.ok(examples[0].startsWith(`\nExample:\n  ${name} `), `${name}'s example is for another command: ${examples[0]}`);
    assert.match(r.out, /Exit status: 0 success; 1 .*; 2 bad usage/, name);
    assert.doesNotMatch(r.out, /\{false\}|\{true\}|FLOAT:FLOAT| in \[|:\{|\bTEXT:/, name);
  }
  assert.match(pulse('check', '--help').out, /--fail-on TEXT/);
  assert.match(pulse('check', '--help').out, /--now-file TEXT/);
});

test('--now-file is taken wherever --now is', opts, () => {
  const file = join(tmp.dir, 'now.txt');
  writeFileSync(file, `${SUBSTACK_CHECK_AT}\n`);
  const r = pulse('check', '--workspace', ws, '--workflow', 'substack', '--now-file', file, '--json');
  assert.equal(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out).checked_at, SUBSTACK_CHECK_AT);
  assert.equal(JSON.parse(pulse('status', '--workspace', ws, '--now-file', file, '--json').out).checked_at, SUBSTACK_CHECK_AT);
  // Every command that takes --now takes --now-file too.
  const withNow = commandTree().filter((cmd) => /\n {2}--now TEXT/.test(pulse(...cmd, '--help').out));
  assert.ok(withNow.length > 20, `only ${withNow.length} commands take --now`);
  for (const cmd of withNow) assert.match(pulse(...cmd, '--help').out, /\n {2}--now-file TEXT/, cmd.join(' '));
  const bad = pulse('check', '--workspace', ws, '--workflow', 'substack', '--now-file', join(tmp.dir, 'none.txt'));
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--now-file .*none\.txt/);
});

test('pulse info shows the configuration, not the core\'s method list unless asked', opts, () => {
  const plain = pulse('info', '--workspace', ws, '--workflow', 'substack');
  assert.equal(plain.code, 0, plain.err);
  assert.doesNotMatch(plain.out, /goal\.check|decision\.answer/);
  assert.equal(JSON.parse(pulse('info', '--workspace', ws, '--workflow', 'substack', '--json').out).methods, undefined);
  assert.match(pulse('info', '--workspace', ws, '--workflow', 'substack', '--methods').out, /goal\.check/);
});
