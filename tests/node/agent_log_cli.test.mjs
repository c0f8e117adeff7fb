// The background-agent log end to end: the real `pulse` binary on a temp
// workspace (record, read back, prune, best-effort faults, the workflow-only
// boundary, eight concurrent writers, a writer killed mid-stream) and the
// real WASM module reading and writing the same database's bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { PULSE_BIN, loadPulseModule, makeTempDir, pulseReply } from './helpers.mjs';

const NOW = '2026-10-07T12:00:00Z';

function workspace(t, workflowJson = '{}') {
  const { dir, cleanup } = makeTempDir('pulse-agentlog-');
  t.after(cleanup);
  const ws = join(dir, 'ws');
  mkdirSync(join(ws, 'Workflow', 'demo'), { recursive: true });
  writeFileSync(join(ws, 'Workflow', 'demo', 'workflow.json'), workflowJson);
  return { dir, ws, db: join(ws, 'Workflow', 'demo', 'db', 'db.sqlite') };
}

function pulse(args, opts = {}) {
  const r = spawnSync(PULSE_BIN, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, ...opts });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function log(ws, sub, ...args) {
  return pulse(['agent-log', sub, '--workspace', ws, '--workflow', 'demo', ...args]);
}

function show(ws, ...args) {
  const r = log(ws, 'show', '--json', '--now', NOW, ...args);
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out);
}

function filesUnder(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    out.push(p);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
  }
  return out.sort();
}

test('started then completed is one row; show reads it back oldest first with every filter', (t) => {
  const { ws, db } = workspace(t);
  const ok = (r) => assert.equal(r.code, 0, r.err);
  ok(log(ws, 'started', '--session', 's2', '--agent', 'late', '--run-id', 'run-B', '--at', '2026-10-07T11:30:00Z'));
  ok(log(ws, 'started', '--session', 's1', '--agent', 'gate', '--name', 'Gate', '--kind', 'gate', '--parent', 'exec-1',
    '--run-id', 'run-A', '--at', '2026-10-07T09:00:00Z'));
  ok(log(ws, 'completed', '--session', 's1', '--agent', 'gate', '--result', 'changed', '--duration', '4m',
    '--at', '2026-10-07T09:04:00Z'));
  ok(log(ws, 'started', '--session', 's1', '--agent', 'fixer', '--run-id', 'run-A', '--at', '2026-10-07T09:05:00Z'));
  assert.ok(existsSync(db), 'the database file is on disk');

  const all = show(ws);
  assert.deepEqual(all.rows.map((r) => r.agent_id), ['gate', 'fixer', 'late']);
  const gate = all.rows[0];
  assert.equal(gate.workspace_path, 'Workflow/demo');
  assert.equal(gate.session_id, 's1');
  assert.equal(gate.name, 'Gate');
  assert.equal(gate.kind, 'gate');
  assert.equal(gate.parent_execution_id, 'exec-1');
  assert.equal(gate.pulse_run_id, 'run-A');
  assert.equal(gate.status, 'completed');
  assert.equal(gate.result, 'changed');
  assert.equal(gate.duration, '4m');
  assert.equal(gate.started_at, '2026-10-07T09:00:00Z');
  assert.equal(gate.completed_at, '2026-10-07T09:04:00Z');
  assert.equal(all.stuck_after_minutes, 60);

  assert.deepEqual(show(ws, '--session', 's1').rows.map((r) => r.agent_id), ['gate', 'fixer']);
  assert.deepEqual(show(ws, '--run-id', 'run-B').rows.map((r) => r.agent_id), ['late']);
  const running = show(ws, '--status', 'running');
  assert.deepEqual(running.rows.map((r) => [r.agent_id, r.stuck]), [['fixer', true], ['late', false]]);
  assert.deepEqual(show(ws, '--status', 'running', '--stuck-after', '20').rows.map((r) => r.stuck), [true, true]);
  assert.deepEqual(show(ws, '--status', 'stuck').rows.map((r) => r.agent_id), ['fixer']);
  assert.deepEqual(show(ws, '--since', '2026-10-07T09:03:00Z').rows.map((r) => r.agent_id), ['gate', 'fixer', 'late']);
  assert.deepEqual(show(ws, '--since', '2026-10-07T10:00:00Z').rows.map((r) => r.agent_id), ['late']);

  // A late start never reopens the finished row nor blanks its fields.
  ok(log(ws, 'started', '--session', 's1', '--agent', 'gate', '--name', 'Other', '--at', '2026-10-07T10:00:00Z'));
  const again = show(ws, '--session', 's1').rows[0];
  assert.equal(again.status, 'completed');
  assert.equal(again.name, 'Gate');
  assert.equal(again.result, 'changed');

  // The table for people.
  const table = log(ws, 'show', '--now', NOW);
  assert.equal(table.code, 0, table.err);
  const lines = table.out.trim().split('\n');
  assert.match(lines[0], /^STARTED\s+COMPLETED\s+SESSION\s+AGENT\s+NAME\s+KIND\s+STATUS\s+DURATION\s+RUN\s+RESULT$/);
  assert.match(lines[1], /2026-10-07T09:00:00Z\s+2026-10-07T09:04:00Z\s+s1\s+gate\s+Gate\s+gate\s+completed\s+4m\s+run-A\s+changed/);
  assert.match(lines[2], /fixer.*running \(stuck\)/);
  assert.equal(lines.at(-1), '3 agents, 2 running, 1 stuck (running over 60 min)');
});

test('show --limit reads one page newest first and --cursor walks every row once; bad pages are refused', (t) => {
  const { ws } = workspace(t);
  const ok = (r) => assert.equal(r.code, 0, r.err);
  // Seven agents a minute apart in two sessions; the last one still running.
  for (let i = 1; i <= 7; i++) {
    const at = `2026-10-07T10:0${i}:00Z`;
    ok(log(ws, 'started', '--session', i % 2 ? 'odd' : 'even', '--agent', `a${i}`, '--at', at));
    if (i < 7) ok(log(ws, 'completed', '--session', i % 2 ? 'odd' : 'even', '--agent', `a${i}`, '--at', `2026-10-07T10:0${i}:30Z`));
  }
  const walk = (...filter) => {
    const seen = [];
    let cursor = null;
    for (let pages = 1; ; pages++) {
      const page = show(ws, '--limit', '3', ...(cursor ? ['--cursor', cursor] : []), ...filter);
      assert.ok(page.rows.length <= 3);
      seen.push(...page.rows.map((r) => r.agent_id));
      cursor = page.next_cursor;
      if (cursor === null) return { seen, pages };
      assert.ok(pages < 10, 'the walk ends');
    }
  };
  assert.deepEqual(walk(), { seen: ['a7', 'a6', 'a5', 'a4', 'a3', 'a2', 'a1'], pages: 3 });
  assert.deepEqual(walk('--session', 'odd').seen, ['a7', 'a5', 'a3', 'a1']);
  assert.deepEqual(walk('--status', 'running').seen, ['a7']);
  assert.deepEqual(walk('--since', '2026-10-07T10:05:00Z').seen, ['a7', 'a6', 'a5']);
  // Without --limit: the whole log, oldest first, as before.
  assert.deepEqual(show(ws).rows.map((r) => r.agent_id), ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7']);

  // The table names the next page's cursor.
  const table = log(ws, 'show', '--now', NOW, '--limit', '2');
  ok(table);
  const cursorLine = table.out.trim().split('\n').at(-1);
  assert.match(cursorLine, /^older rows: --cursor \S+$/);
  const next = show(ws, '--limit', '2', '--cursor', cursorLine.split(' ').at(-1));
  assert.deepEqual(next.rows.map((r) => r.agent_id), ['a5', 'a4']);

  for (const [args, why] of [
    [['--limit', '0'], /--limit/],
    [['--limit', '1001'], /--limit/],
    [['--limit', 'x'], /--limit/],
    [['--cursor', next.next_cursor], /cursor.*needs limit/],
    [['--limit', '2', '--cursor', 'garbage'], /cursor "garbage" is not one this log gave/],
  ]) {
    const r = log(ws, 'show', ...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.out}${r.err}`);
    assert.match(r.err, why);
    assert.equal(r.err.trim().split('\n').length, 1, `one line: ${r.err}`);
  }
});

test('a completion with no start makes one row; the stuck age comes from workflow.json', (t) => {
  const { ws } = workspace(t, JSON.stringify({ pulse: { agent_log: { stuck_after_minutes: 5 } } }));
  assert.equal(log(ws, 'completed', '--session', 's', '--agent', 'orphan', '--status', 'failed', '--error', 'killed',
    '--at', '2026-10-07T11:00:00Z').code, 0);
  assert.equal(log(ws, 'started', '--session', 's', '--agent', 'slow', '--at', '2026-10-07T11:50:00Z').code, 0);
  const out = show(ws);
  assert.equal(out.stuck_after_minutes, 5);
  assert.deepEqual(out.rows.map((r) => [r.agent_id, r.status, r.started_at, r.error, r.stuck]), [
    ['orphan', 'failed', '', 'killed', false],
    ['slow', 'running', '2026-10-07T11:50:00Z', '', true],
  ]);
});

test('a session with no workflow is a silent no-op that creates no file', (t) => {
  const { dir, ws } = workspace(t);
  const before = filesUnder(dir);
  for (const sub of [['started'], ['completed', '--status', 'failed']]) {
    const r = pulse(['agent-log', sub[0], '--workspace', ws, '--session', 'chat-1', '--agent', 'a1', ...sub.slice(1)],
      { cwd: dir });
    assert.equal(r.code, 0, r.err);
    assert.equal(r.err, '');
    assert.equal(r.out, '');
  }
  const empty = pulse(['agent-log', 'started', '--workspace', ws, '--workflow', '', '--session', 's', '--agent', 'a',
    '--json'], { cwd: dir });
  assert.equal(empty.code, 0, empty.err);
  assert.deepEqual(JSON.parse(empty.out), { recorded: false, reason: 'no workflow' });
  const batch = pulse(['agent-log', 'batch', '--workspace', ws], {
    cwd: dir, input: '{"event":"started","session":"s","agent":"a"}\n' });
  assert.equal(batch.code, 0, batch.err);
  assert.equal(batch.out, 'skipped started s a\n');
  assert.deepEqual(filesUnder(dir), before);
});

test('bad usage is exit 2 with a one-line reason and records nothing', (t) => {
  const { ws, db } = workspace(t);
  const cases = [
    [['started', '--agent', 'a'], /--session is required/],
    [['started', '--session', 's', '--agent', 'a', '--at', 'yesterday'], /--at|"at".*not an RFC 3339 time/],
    [['completed', '--session', 's', '--agent', 'a', '--status', 'running'], /not a finished status/],
    [['show', '--since', 'soon'], /--since: "soon" is not an RFC 3339 time/],
    [['prune'], /--older-than is required/],
    [['prune', '--older-than', '-3'], /older-than/],
  ];
  for (const [args, re] of cases) {
    const r = log(ws, ...args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, re);
    assert.equal(r.err.trim().split('\n').length, 1, r.err);
  }
  const noFlow = pulse(['agent-log', 'started', '--workspace', ws, '--workflow', 'nope', '--session', 's', '--agent', 'a']);
  assert.equal(noFlow.code, 2);
  assert.match(noFlow.err, /Workflow\/nope: no such workflow/);
  assert.equal(existsSync(join(ws, 'Workflow', 'nope')), false);
  const escape = pulse(['agent-log', 'started', '--workspace', ws, '--workflow', '../x', '--session', 's', '--agent', 'a']);
  assert.equal(escape.code, 2);
  assert.equal(existsSync(db), false, 'nothing was recorded');
  const batch = log(ws, 'batch', '--now', NOW);
  assert.equal(batch.code, 0);
  const mixed = pulse(['agent-log', 'batch', '--workspace', ws, '--workflow', 'demo'], {
    input: 'not json\n{"event":"started","session":"s","agent":"ok"}\n{"event":"paused","session":"s","agent":"x"}\n' });
  assert.equal(mixed.code, 2);
  assert.match(mixed.err, /stdin line 1: not a JSON object/);
  assert.match(mixed.err, /stdin line 3: "event" must be "started" or "completed"/);
  assert.equal(mixed.out, 'ok started s ok\n');  // the good line is kept
});

test('a failed write is a warning on stderr and exit 0: corrupt file, directory, read-only file', (t) => {
  const { ws, db } = workspace(t);
  const expectSwallowed = (reason) => {
    for (const args of [['started', '--session', 's', '--agent', 'a'], ['completed', '--session', 's', '--agent', 'a']]) {
      const r = log(ws, ...args);
      assert.equal(r.code, 0, r.err);
      const warnings = r.err.trim().split('\n');
      assert.equal(warnings.length, 1, r.err);
      assert.match(warnings[0], /^pulse: warning: agent log: could not record the (start|completion) of agent "a"/);
      assert.match(warnings[0], reason);
    }
  };
  mkdirSync(join(ws, 'Workflow', 'demo', 'db'), { recursive: true });
  const junk = Buffer.alloc(8192, 'x');
  writeFileSync(db, junk);
  expectSwallowed(/not a database/);
  assert.deepEqual(readFileSync(db), junk, 'the corrupt file is left exactly as it was');

  rmSyncSafe(db);
  mkdirSync(db);
  expectSwallowed(/unable to open database file/);
  rmSyncSafe(db);

  // A real database whose header declares write version 3: SQLite treats it
  // as read-only, for root too (chmod would not stop root).
  assert.equal(log(ws, 'started', '--session', 's', '--agent', 'first').code, 0);
  const bytes = readFileSync(db);
  bytes[18] = 3;
  bytes[19] = 1;
  writeFileSync(db, bytes);
  expectSwallowed(/readonly/);
});

function rmSyncSafe(p) {
  spawnSync('rm', ['-rf', p]);
}

test('prune is opt-in, removes only old finished rows, keeps the newest per session, never running rows', (t) => {
  const { ws } = workspace(t);
  const day = (n) => new Date(Date.parse(NOW) - n * 86400000).toISOString().replace(/\.\d+Z$/, 'Z');
  for (const [agent, age] of [['d40', 40], ['d30', 30], ['d20', 20], ['d1', 1]]) {
    assert.equal(log(ws, 'started', '--session', 's1', '--agent', agent, '--at', day(age)).code, 0);
    assert.equal(log(ws, 'completed', '--session', 's1', '--agent', agent, '--at', day(age)).code, 0);
  }
  assert.equal(log(ws, 'started', '--session', 's1', '--agent', 'hung', '--at', day(50)).code, 0);
  // Other commands never delete anything.
  assert.equal(show(ws).rows.length, 5);

  const dry = log(ws, 'prune', '--older-than', '10', '--keep-last', '2', '--dry-run', '--now', NOW);
  assert.equal(dry.code, 0, dry.err);
  assert.match(dry.out, /^would remove 2 finished rows older than 10 days, keeping the newest 2 per session:/);
  assert.match(dry.out, /d40/);
  assert.match(dry.out, /d30/);
  assert.equal(show(ws).rows.length, 5);

  const real = JSON.parse(log(ws, 'prune', '--older-than', '10', '--keep-last', '2', '--json', '--now', NOW).out);
  assert.equal(real.dry_run, false);
  assert.deepEqual(real.removed.map((r) => r.agent_id), ['d40', 'd30']);
  assert.deepEqual(show(ws).rows.map((r) => r.agent_id), ['hung', 'd20', 'd1']);

  const rest = log(ws, 'prune', '--older-than', '0', '--now', NOW);
  assert.match(rest.out, /^removed 2 finished rows older than 0 days:/);
  assert.deepEqual(show(ws).rows.map((r) => [r.agent_id, r.status]), [['hung', 'running']]);
});

test('prune keeps the evidence: the agents of a failed run in the goal check window, a decision\'s session', (t) => {
  const goal = JSON.stringify({ goal: { primary_metric: { name: 'subscribers', route: 'growth_funnel', target: 1000 } } });
  const { ws } = workspace(t, goal);
  const day = (n) => new Date(Date.parse(NOW) - n * 86400000).toISOString().replace(/\.\d+Z$/, 'Z');
  const ok = (r) => assert.equal(r.code, 0, r.err);
  // The last recorded goal check was 45 days ago; run r-35 failed 35 days ago.
  ok(pulse(['check', '--workspace', ws, '--workflow', 'demo', '--record', '--now', day(45)]));
  const run = join(ws, 'Workflow', 'demo', 'runs', 'iteration-1', 'default');
  mkdirSync(run, { recursive: true });
  writeFileSync(join(run, 'run.json'), JSON.stringify({ run_id: 'r-35', started_at: day(35), finished_at: day(35),
    status: 'failed', error: 'step fetch: HTTP 401' }));
  for (const [session, agent, age, status, runId] of [['run-r-35', 'fixer', 35, 'failed', 'r-35'],
    ['s-asked', 'reviewer', 40, 'completed', ''], ['s-other', 'gate', 40, 'completed', 'r-ok']]) {
    ok(log(ws, 'started', '--session', session, '--agent', agent, '--at', day(age), ...(runId ? ['--run-id', runId] : [])));
    ok(log(ws, 'completed', '--session', session, '--agent', agent, '--status', status, '--at', day(age)));
  }
  ok(pulse(['decision', 'create', '--workspace', ws, '--workflow', 'demo', '--question', 'Retry what s-asked found?']));

  const dry = log(ws, 'prune', '--older-than', '30', '--dry-run', '--now', NOW);
  assert.equal(dry.code, 0, dry.err);
  assert.match(dry.out, /^would remove 1 finished row older than 30 days:/);
  assert.doesNotMatch(dry.out.split('kept')[0], /fixer|reviewer/, 'evidence is not listed for deletion');
  assert.match(dry.out, /kept 2 rows as evidence:/);
  assert.match(dry.out, /run-r-35 fixer \(failed\): run r-35 failed at .* in the goal check's window/);
  assert.match(dry.out, /s-asked reviewer \(completed\): decision 1 \(pending\) points to it/);

  const real = JSON.parse(log(ws, 'prune', '--older-than', '30', '--json', '--now', NOW).out);
  assert.deepEqual(real.removed.map((r) => r.agent_id), ['gate']);
  assert.deepEqual(real.kept.map((r) => r.agent_id).sort(), ['fixer', 'reviewer']);
  assert.ok(real.kept.every((r) => r.kept_because));
  assert.deepEqual(show(ws).rows.map((r) => r.agent_id).sort(), ['fixer', 'reviewer']);
});

test('a database made by the seed (v1 table, no pulse_run_id) is upgraded in place', async (t) => {
  const { ws, db } = workspace(t);
  const SQL = await initSqlJs();
  const seed = new SQL.Database();
  seed.run(`CREATE TABLE IF NOT EXISTS background_agent_log (
    workspace_path TEXT NOT NULL, session_id TEXT NOT NULL, agent_id TEXT NOT NULL,
    name TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL DEFAULT '', parent_execution_id TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT '', result TEXT NOT NULL DEFAULT '', error TEXT NOT NULL DEFAULT '',
    duration TEXT NOT NULL DEFAULT '', started_at TEXT NOT NULL DEFAULT '', completed_at TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL, PRIMARY KEY (workspace_path, session_id, agent_id))`);
  seed.run(`INSERT INTO background_agent_log(workspace_path, session_id, agent_id, name, status, result, started_at,
    completed_at, updated_at) VALUES ('Workflow/demo', 'old', 'gate', 'Gate', 'completed', 'changed',
    '2026-08-12T09:00:00Z', '2026-08-12T09:02:00Z', '2026-08-12T09:02:00Z'),
    ('Workflow/demo', 'old', 'fixer', 'Fixer', 'running', '', '2026-08-12T09:03:00Z', '', '2026-08-12T09:03:00Z')`);
  mkdirSync(join(ws, 'Workflow', 'demo', 'db'), { recursive: true });
  writeFileSync(db, seed.export());
  seed.close();

  const rows = show(ws).rows;
  assert.deepEqual(rows.map((r) => [r.agent_id, r.status, r.pulse_run_id, r.result]),
    [['gate', 'completed', '', 'changed'], ['fixer', 'running', '', '']]);
  assert.equal(log(ws, 'completed', '--session', 'old', '--agent', 'fixer', '--result', 'fixed').code, 0);
  assert.deepEqual(show(ws, '--session', 'old').rows.map((r) => [r.agent_id, r.status]),
    [['gate', 'completed'], ['fixer', 'completed']]);
});

// Events for `pulse agent-log batch`: a start and a completion per agent.
function events(session, count, from = 0) {
  let s = '';
  for (let i = from; i < from + count; i++) {
    s += JSON.stringify({ event: 'started', session, agent: `a${i}`, name: `agent ${i}`, kind: 'sub_agent' }) + '\n';
    s += JSON.stringify({ event: 'completed', session, agent: `a${i}`, result: `done ${i}` }) + '\n';
  }
  return s;
}

function run(args, input) {
  return new Promise((resolve) => {
    const child = spawn(PULSE_BIN, args);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('close', (code) => resolve({ code, out, err }));
    child.stdin.end(input);
  });
}

test('eight processes recording 1,000 agents each at once end with 8,000 complete rows', async (t) => {
  const { ws } = workspace(t);
  // All eight start on a workspace with no database yet: they race to create it too.
  const results = await Promise.all(Array.from({ length: 8 }, (_, p) =>
    run(['agent-log', 'batch', '--workspace', ws, '--workflow', 'demo'], events(`proc-${p}`, 1000))));
  for (const r of results) {
    assert.equal(r.code, 0, r.err);
    assert.equal(r.err, '');
    const acks = r.out.trim().split('\n');
    assert.equal(acks.length, 2000);
    assert.ok(acks.every((l) => l.startsWith('ok ')), acks.find((l) => !l.startsWith('ok ')));
  }
  const rows = show(ws).rows;
  assert.equal(rows.length, 8000);
  assert.equal(rows.filter((r) => r.status === 'completed' && r.started_at && r.completed_at
    && r.result === `done ${r.agent_id.slice(1)}` && r.kind === 'sub_agent').length, 8000);
  for (let p = 0; p < 8; p++) assert.equal(rows.filter((r) => r.session_id === `proc-${p}`).length, 1000);
});

test('a writer killed with SIGKILL mid-stream leaves a sound database holding every acknowledged row', async (t) => {
  const { ws, db } = workspace(t);
  const child = spawn(PULSE_BIN, ['agent-log', 'batch', '--workspace', ws, '--workflow', 'demo']);
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const killed = new Promise((resolve) => child.on('close', (code, signal) => resolve(signal)));
  const enough = new Promise((resolve) => {
    child.stdout.on('data', (d) => {
      out += d;
      if (out.split('\n').length > 1500) resolve();
    });
  });
  child.stdin.on('error', () => {});  // the pipe breaks when it dies
  child.stdin.write(events('kill', 20000));
  await enough;
  child.kill('SIGKILL');
  assert.equal(await killed, 'SIGKILL');
  assert.equal(err, '');
  // Only whole lines are acknowledgements.
  const acked = out.split('\n').slice(0, -1).map((l) => l.split(' '));
  assert.ok(acked.length >= 1500);
  assert.ok(acked.length < 40000, 'killed before the end of its input');

  // Reading recovers the WAL; every acknowledged event is there.
  const rows = new Map(show(ws, '--session', 'kill').rows.map((r) => [r.agent_id, r]));
  for (const [outcome, event, , agent] of acked) {
    assert.equal(outcome, 'ok');
    const row = rows.get(agent);
    assert.ok(row, `${agent} was acknowledged but is missing`);
    if (event === 'completed') assert.equal(row.status, 'completed', agent);
    else assert.ok(row.started_at, agent);
  }
  // That reader was the last connection: the file on its own now holds
  // everything. An independent SQLite (sql.js) checks its integrity.
  assert.equal(existsSync(`${db}-wal`), false);
  const bytes = readFileSync(db);
  bytes[18] = 1;  // WAL → rollback journaling, which an in-memory copy needs
  bytes[19] = 1;
  const SQL = await initSqlJs();
  const copy = new SQL.Database(bytes);
  assert.deepEqual(copy.exec('PRAGMA integrity_check')[0].values, [['ok']]);
  const count = copy.exec("SELECT count(*) FROM background_agent_log WHERE session_id = 'kill'")[0].values[0][0];
  assert.equal(count, rows.size);
  copy.close();
});

// ---- the WASM facade on the same database ----

// Opens a copy of a database file's bytes inside the module (sqlite3_deserialize
// onto an in-memory connection) and returns the sqlite3* for the facade.
function openBytes(Module, fileBytes) {
  const bytes = Uint8Array.from(fileBytes);
  bytes[18] = 1;  // the in-memory copy journals in memory, not in a WAL
  bytes[19] = 1;
  const pp = Module._malloc(4);
  const name = Module._malloc(16);
  Module.stringToUTF8(':memory:', name, 16);
  assert.equal(Module._sqlite3_open_v2(name, pp, 6, 0), 0);
  const db = Module.getValue(pp, 'i32');
  const buf = Module._sqlite3_malloc(bytes.length);
  Module.HEAPU8.set(bytes, buf);
  Module.stringToUTF8('main', name, 16);
  // i64 arguments arrive as (low, high) pairs (WASM_BIGINT=0); flags:
  // FREEONCLOSE | RESIZEABLE, so the copy can grow as rows are written.
  assert.equal(Module._sqlite3_deserialize(db, name, buf, bytes.length, 0, bytes.length, 0, 3), 0);
  Module._free(pp);
  Module._free(name);
  return db;
}

function call(Module, db, method, args, now = NOW) {
  const out = pulseReply(Module, db, method, args, Date.parse(now) / 1000);
  if (out.error) throw new Error(`${method}: ${out.code}: ${out.error}`);
  return out.result;
}

test('the WASM facade reads and writes the same log from the database file\'s bytes', async (t) => {
  const { ws, db } = workspace(t);
  assert.equal(log(ws, 'started', '--session', 's1', '--agent', 'gate', '--name', 'Gate', '--run-id', 'run-A',
    '--at', '2026-10-07T09:00:00Z').code, 0);
  assert.equal(log(ws, 'completed', '--session', 's1', '--agent', 'gate', '--result', 'changed',
    '--at', '2026-10-07T09:04:00Z').code, 0);
  assert.equal(log(ws, 'started', '--session', 's1', '--agent', 'fixer', '--at', '2026-10-07T09:05:00Z').code, 0);
  const native = show(ws);

  const Module = await loadPulseModule();
  const handle = openBytes(Module, readFileSync(db));
  t.after(() => Module._sqlite3_close_v2(handle));
  const inWasm = call(Module, handle, 'agent_log.show', {});
  assert.deepEqual(inWasm, native, 'the browser sees exactly what the command line sees');
  assert.deepEqual(call(Module, handle, 'agent_log.show', { status: 'running' }).rows.map((r) => [r.agent_id, r.stuck]),
    [['fixer', true]]);
  assert.deepEqual(call(Module, handle, 'agent_log.show', { pulse_run_id: 'run-A' }).rows.map((r) => r.agent_id), ['gate']);

  // Writing in the module: the workflow comes from the stored snapshot.
  const rec = call(Module, handle, 'agent_log.completed', { session: 's1', agent: 'fixer', status: 'failed',
    error: 'timeout', at: '2026-10-07T11:00:00Z' });
  assert.equal(rec.recorded, true);
  assert.equal(rec.workspace_path, 'Workflow/demo');
  const late = call(Module, handle, 'agent_log.started', { session: 's1', agent: 'fixer', name: 'Fixer' });
  assert.equal(late.recorded, true);
  const after = call(Module, handle, 'agent_log.show', { session: 's1' }).rows;
  assert.deepEqual(after.map((r) => [r.agent_id, r.status, r.name, r.error]),
    [['gate', 'completed', 'Gate', ''], ['fixer', 'failed', 'Fixer', 'timeout']]);
  const batch = call(Module, handle, 'agent_log.record', { events: [
    { event: 'started', session: 's2', agent: 'b1', at: '2026-10-07T11:58:00Z' },
    { event: 'completed', session: 's2', agent: 'b1', status: 'cancelled', at: '2026-10-07T11:59:00Z' }] });
  assert.equal(batch.recorded, 2);
  assert.deepEqual(call(Module, handle, 'agent_log.show', { session: 's2' }).rows.map((r) => [r.agent_id, r.status]),
    [['b1', 'cancelled']]);
  const pruned = call(Module, handle, 'agent_log.prune', { older_than_days: 0, dry_run: true });
  // The failed fixer row is evidence (a failure in the goal check's window):
  // prune keeps it, so gate and the batch's b1 are the ones listed.
  assert.equal(pruned.count, 2);
  assert.throws(() => call(Module, handle, 'agent_log.started', { agent: 'x' }), /invalid_argument.*"session" is required/);

  // A bare in-memory database has no workflow: recording is a no-op there.
  const bare = openBytes(Module, await emptyDbBytes());
  t.after(() => Module._sqlite3_close_v2(bare));
  assert.deepEqual(call(Module, bare, 'agent_log.started', { session: 's', agent: 'a' }),
    { recorded: false, reason: 'no workflow' });
  assert.deepEqual(call(Module, bare, 'agent_log.show', {}).rows, []);
});

async function emptyDbBytes() {
  const SQL = await initSqlJs();
  const d = new SQL.Database();
  d.run('CREATE TABLE unrelated_app_table(x)');
  const bytes = d.export();
  d.close();
  return bytes;
}
