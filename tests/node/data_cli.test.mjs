// Data that must never poison a database, through the real `pulse` binary on
// temp workspaces: text cut inside a UTF-8 character (stored repaired, read
// back repaired even when another writer stored the raw bytes), numbers out
// of range in workflow.json, nesting 20,000 deep, readings that are not
// finite numbers, and time offsets that are no offsets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { PULSE_BIN, makeTempDir } from './helpers.mjs';

const NOW = '2026-10-07T12:00:00Z';
const FFFD = '\uFFFD';
const GOAL = {
  goal: { primary_metric: { name: 'subscribers', route: 'growth', target: 1000, baseline: 200 } },
};

function workspace(t, workflows = { demo: GOAL }) {
  const { dir, cleanup } = makeTempDir('pulse-data-');
  t.after(cleanup);
  const ws = join(dir, 'ws');
  for (const [name, config] of Object.entries(workflows)) {
    mkdirSync(join(ws, 'Workflow', name), { recursive: true });
    writeFileSync(join(ws, 'Workflow', name, 'workflow.json'), typeof config === 'string' ? config : JSON.stringify(config));
  }
  return { dir, ws, db: (name = 'demo') => join(ws, 'Workflow', name, 'db', 'db.sqlite') };
}

function pulse(args) {
  const r = spawnSync(PULSE_BIN, args, { encoding: 'utf8' });
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

// argv cannot carry bytes that are not UTF-8 from a JS string: the shell's
// printf writes them (octal escapes) into the argument.
function pulseWithRawArg(args, flag, octalBytes) {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync('sh', ['-c', `"$PULSE" ${quoted} ${flag} "$(printf '${octalBytes}')"`], {
    encoding: 'utf8', env: { ...process.env, PULSE: PULSE_BIN },
  });
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

async function withDb(path, fn) {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(path));
  try {
    const out = fn(db);
    writeFileSync(path, db.export());
    return out;
  } finally {
    db.close();
  }
}

test('runner output cut inside a UTF-8 character is stored repaired and reads back as JSON', (t) => {
  const { ws } = workspace(t);
  const common = ['agent-log', 'started', '--workspace', ws, '--workflow', 'demo', '--session', 's1', '--agent', 'a1'];
  assert.equal(pulse(common).code, 0);
  // "done €" with the euro sign's last byte cut off.
  const r = pulseWithRawArg(['agent-log', 'completed', '--workspace', ws, '--workflow', 'demo', '--session', 's1',
    '--agent', 'a1', '--status', 'completed'], '--result', 'done \\342\\202');
  assert.equal(r.code, 0, r.err);
  const show = pulse(['agent-log', 'show', '--workspace', ws, '--workflow', 'demo', '--json', '--now', NOW]);
  assert.equal(show.code, 0, show.err);
  assert.equal(show.signal, null);
  const rows = JSON.parse(show.out);
  const list = Array.isArray(rows) ? rows : rows.rows;
  assert.equal(list[0].result, `done ${FFFD}`);
});

test('bad bytes another writer stored are shown repaired, never abort the reader', async (t) => {
  const { ws, db } = workspace(t);
  const base = ['--workspace', ws, '--workflow', 'demo'];
  assert.equal(pulse(['agent-log', 'started', ...base, '--session', 's1', '--agent', 'a1']).code, 0);
  assert.equal(pulse(['decision', 'create', ...base, '--question', 'Which title?', '--option', 'A']).code, 0);
  await withDb(db(), (d) => {
    d.run("UPDATE background_agent_log SET name = CAST(X'6F6BE282' AS TEXT), result = CAST(X'FF' AS TEXT)");
    d.run("UPDATE pulse_decisions SET question = CAST(X'5768696368E2' AS TEXT)");
  });
  const show = pulse(['agent-log', 'show', ...base, '--json', '--now', NOW]);
  assert.equal(show.code, 0, show.err);
  const rows = JSON.parse(show.out);
  const row = (Array.isArray(rows) ? rows : rows.rows)[0];
  assert.equal(row.name, `ok${FFFD}`);
  assert.equal(row.result, FFFD);
  const list = pulse(['decision', 'list', ...base, '--status', 'all', '--json']);
  assert.equal(list.code, 0, list.err);
  assert.match(list.out, /Which\uFFFD/);
});

test('1e400 in one workflow.json: that workflow exits 2 naming the file; the others go on', (t) => {
  const { ws, db } = workspace(t, {
    bad: '{"goal": {"primary_metric": {"name": "m", "target": 1e400}}}',
    good: GOAL,
  });
  const bad = pulse(['check', '--workspace', ws, '--workflow', 'bad', '--json', '--now', NOW]);
  assert.equal(bad.code, 2, bad.err);
  assert.match(bad.err, /Workflow\/bad\/workflow\.json/);
  assert.match(bad.err, /number overflow parsing '1e400'/);
  assert.equal(bad.err.trim().split('\n').length, 1);
  assert.equal(existsSync(db('bad')), false, 'nothing written for a refused configuration');
  const good = pulse(['check', '--workspace', ws, '--workflow', 'good', '--json', '--now', NOW]);
  assert.equal(good.code, 0, good.err);
  assert.equal(JSON.parse(good.out).status, 'not_measured');
});

test('a workflow.json nested 20,000 deep is refused at the door', (t) => {
  const deep = `{"pulse": {"enabled": true}, "x": ${'['.repeat(20000)}${']'.repeat(20000)}}`;
  const { ws, db } = workspace(t, { demo: deep });
  const r = pulse(['check', '--workspace', ws, '--workflow', 'demo', '--json', '--now', NOW]);
  assert.equal(r.code, 2, r.err);
  assert.equal(r.signal, null);
  assert.match(r.err, /workflow\.json: JSON nested deeper than 64 levels/);
  assert.equal(existsSync(db()), false);
});

test('observe refuses values that are not finite numbers and stores nothing', async (t) => {
  const { ws, db } = workspace(t);
  const base = ['observe', '--workspace', ws, '--workflow', 'demo', '--metric', 'subscribers', '--source', 'manual',
    '--at', '2026-10-07T09:00:00Z'];
  assert.equal(pulse([...base, '--value', '412']).code, 0);
  for (const value of ['inf', '-inf', 'Infinity', 'nan', '1e400', '-1e400', '', ' ', '0x10', '12abc']) {
    const r = pulse([...base, '--value', value]);
    assert.equal(r.code, 2, `--value ${JSON.stringify(value)}: ${r.err}`);
    assert.match(r.err, /--value/);
  }
  const values = await withDb(db(), (d) => d.exec('SELECT value FROM pulse_goal_observations')[0].values.flat());
  assert.deepEqual(values, [412]);
});

test('times with offsets outside ±23:59 are refused', (t) => {
  const { ws, dir } = workspace(t);
  for (const offset of ['+99:99', '+24:00', '+23:60', '-24:00']) {
    const r = pulse(['observe', '--workspace', ws, '--workflow', 'demo', '--metric', 'subscribers', '--source', 'manual',
      '--value', '1', '--at', `2026-10-07T09:00:00${offset}`]);
    assert.equal(r.code, 2, `${offset}: ${r.err}`);
    assert.match(r.err, /RFC 3339/);
    const runDir = join(dir, `run${offset.replace(/[+:]/g, '_')}`);
    mkdirSync(runDir);
    writeFileSync(join(runDir, 'run.json'), JSON.stringify({
      run_id: 'r-1', started_at: `2026-10-07T09:00:00${offset}`, finished_at: '2026-10-07T10:00:00Z',
      status: 'completed', trigger: 'schedule:daily', error: '',
    }));
    writeFileSync(join(runDir, 'route_selection.json'), '{"route": "growth"}');
    const f = pulse(['finalize-run', '--workspace', ws, '--workflow', 'demo', '--run-dir', runDir]);
    assert.equal(f.code, 2, `${offset}: ${f.err}`);
    assert.match(f.err, /run\.json/);
  }
  assert.equal(pulse(['observe', '--workspace', ws, '--workflow', 'demo', '--metric', 'subscribers', '--source',
    'manual', '--value', '1', '--at', '2026-10-07T09:00:00+23:59']).code, 0);
});
