// A workflow database shared by the real programs while the server runs, as
// seed 000 has it: background agents write the agent log through six
// `pulse agent-log started/completed` loops (a process per event), the owner
// answers decisions and talks to Pulse through `pulse serve`, the Pulse tab
// reads the agent log, the decisions and the goal status over HTTP, and
// people read db/db.sqlite with SQLite outside Pulse — here Python's sqlite3
// module, opening and closing a connection per read in a loop (the issue's
// one `python3 -c "...connect(...).close()"` was enough to break main).
//
// Checked at the end of each run: every event a writer had acknowledged is
// stored; the server, the CLI and an outside reader agree once writes stop;
// PRAGMA integrity_check is ok; the server never held a deleted -wal or -shm
// (its /proc/<pid>/fd, sampled throughout); no read failed, outside or over
// HTTP. The second run SIGKILLs the server in the middle of the load and
// starts it again; the same checks hold after.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readlinkSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { PULSE_BIN, makeTempDir, makeWorkspace, pulse, request, startServer, waitFor, SUBSTACK_CONFIG } from './helpers.mjs';

const WRITERS = 6;
const AGENTS_PER_WRITER = 15;  // a start and a completion each: 180 processes in all
const READERS = 3;
const HTTP_LOOPS = 3;
const DECISIONS = 8;
const MESSAGES = 4;

const python = spawnSync('python3', ['-c', 'import sqlite3, json'], { encoding: 'utf8' });
const skip = python.status === 0 ? false
  : 'python3 with its sqlite3 module is missing (scripts/setup.sh installs Debian\'s python3): no outside reader';
if (skip && process.env.CI === 'true') throw new Error(`db_integrity: ${skip}`);

// One outside reader: a connection opened, read from and closed per round,
// until `stop` exists. Prints {reads, failures, errors}.
const READER = `
import json, os, sqlite3, sys, time
path, stop = sys.argv[1], sys.argv[2]
reads, failures, errors = 0, 0, []
while not os.path.exists(stop):
    try:
        c = sqlite3.connect(path, timeout=10)
        c.execute('SELECT count(*) FROM background_agent_log').fetchall()
        c.execute("SELECT count(*) FROM pulse_decisions WHERE status = 'answered'").fetchall()
        c.close()
        reads += 1
    except Exception as e:
        failures += 1
        if len(errors) < 5: errors.append(str(e))
    time.sleep(0.003)
print(json.dumps({'reads': reads, 'failures': failures, 'errors': errors}))
`;

// A final look from outside: the rows, the decisions and integrity_check.
const LOOK = `
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1], timeout=10)
out = {
  'integrity': [r[0] for r in c.execute('PRAGMA integrity_check')],
  'agents': sorted([list(r) for r in c.execute('SELECT session_id, agent_id, status, result, pulse_run_id, error'
                                                ' FROM background_agent_log')]),
  'decisions': sorted([list(r) for r in c.execute('SELECT id, status FROM pulse_decisions')]),
  'owner_turns': [r[0] for r in c.execute("SELECT text FROM pulse_conversation_turns WHERE caller = 'owner' ORDER BY id")],
}
c.close()
print(json.dumps(out))
`;

// One background agent writer: a process per event, each acknowledged one
// printed (exit 0 and nothing on stderr: a write the log swallowed warns).
const WRITER = `
PULSE=$1; WS=$2; W=$3; N=$4; ERR=$5
for i in $(seq 1 "$N"); do
  for event in started completed; do
    if [ "$event" = started ]; then extra="--name agent-$i"; else extra="--result done-$i"; fi
    if "$PULSE" agent-log "$event" --workspace "$WS" --workflow substack --session "writer-$W" --agent "a$i" $extra \\
        >/dev/null 2>"$ERR" && [ ! -s "$ERR" ]; then
      echo "$event writer-$W a$i"
    else
      echo "not acked: $event writer-$W a$i: $(cat "$ERR")" >&2
    fi
  done
done
`;

function collect(proc) {
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => { out += d; });
  proc.stderr.on('data', (d) => { err += d; });
  // 'close', not 'exit': the output is all read by then.
  const done = new Promise((resolve) => proc.on('close', (code) => resolve({ code, out, err })));
  return done;
}

// The server's descriptors of a database file whose name is gone.
function deletedDbFiles(pid) {
  const out = [];
  let fds = [];
  try { fds = readdirSync(`/proc/${pid}/fd`); } catch { return out; }
  for (const fd of fds) {
    let link = '';
    try { link = readlinkSync(`/proc/${pid}/fd/${fd}`); } catch { continue; }
    if (link.includes('db.sqlite') && link.endsWith(' (deleted)')) out.push(link);
  }
  return out;
}

function look(db) {
  const r = spawnSync('python3', ['-c', LOOK, db], { encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

async function runLoad({ kill }) {
  const tmp = makeTempDir(kill ? 'pulse-integrity-kill-' : 'pulse-integrity-');
  const ws = makeWorkspace(tmp.dir, { substack: SUBSTACK_CONFIG });
  const db = join(ws, 'Workflow', 'substack', 'db', 'db.sqlite');
  const common = ['--workspace', ws, '--workflow', 'substack'];
  const decisionIds = [];
  for (let i = 0; i < DECISIONS; i++) {
    const made = pulse(['decision', 'create', ...common, '--question', `Question ${i}?`, '--option', 'Yes', '--option', 'No', '--json']);
    assert.equal(made.status, 0, made.stderr);
    decisionIds.push(made.json.id);
  }
  const writerScript = join(tmp.dir, 'writer.sh');
  writeFileSync(writerScript, WRITER);
  const stop = join(tmp.dir, 'stop');

  let server = await startServer(ws);
  const deleted = new Set();
  const httpFailures = [];
  let httpReads = 0;
  let restarting = false;
  let writing = true;
  let serverPids = [server.proc.pid];
  const children = [];
  try {
    // Outside readers and the six writers, all at once.
    const readers = [];
    for (let i = 0; i < READERS; i++) {
      const p = spawn('python3', ['-c', READER, db, stop], { stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(p);
      readers.push(collect(p));
    }
    const writers = [];
    for (let w = 1; w <= WRITERS; w++) {
      const p = spawn('bash', [writerScript, PULSE_BIN, ws, String(w), String(AGENTS_PER_WRITER), join(tmp.dir, `err-${w}`)],
        { stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(p);
      writers.push(collect(p));
    }
    const writersDone = Promise.all(writers);

    // The tab's reads, and the server's descriptors sampled meanwhile.
    const paths = ['agent-log', 'decisions?status=all', 'goal-status'];
    const reads = Array.from({ length: HTTP_LOOPS }, async (_, k) => {
      for (let n = k; writing; n++) {
        const url = server.url;
        if (restarting) { await new Promise((r) => setTimeout(r, 20)); continue; }
        try {
          const r = await request(`${url}api/workflows/substack/${paths[n % paths.length]}`);
          if (r.status !== 200) httpFailures.push(`${paths[n % paths.length]}: ${r.status} ${r.text.slice(0, 200)}`);
          else httpReads++;
        } catch (e) {
          if (!restarting && url === server.url) httpFailures.push(`${paths[n % paths.length]}: ${e.message}`);
        }
        for (const f of deletedDbFiles(server.proc.pid)) deleted.add(f);
      }
    });

    // The owner's writes through the server: answers and messages, paced
    // across the load; the SIGKILL lands in the middle of them.
    const answered = [];
    const messages = [];
    const owner = (async () => {
      const steps = DECISIONS + MESSAGES;
      for (let i = 0; i < steps; i++) {
        if (kill && i === Math.floor(steps / 2)) {
          restarting = true;
          for (const f of deletedDbFiles(server.proc.pid)) deleted.add(f);
          server.proc.kill('SIGKILL');
          await server.exited;
          server = await startServer(ws);
          serverPids.push(server.proc.pid);
          restarting = false;
        }
        await new Promise((r) => setTimeout(r, 150));
        const base = `${server.url}api/workflows/substack`;
        if (i % 3 === 2 && messages.length < MESSAGES) {
          const text = `Message ${messages.length} from the owner`;
          const r = await request(`${base}/messages`, { method: 'POST', token: server.ownerToken, body: { text } });
          if (r.status === 202) messages.push({ text, run: r.body.turn.pulse_run_id });
          else if (r.status !== 429) httpFailures.push(`messages: ${r.status} ${r.text.slice(0, 200)}`);
        } else if (answered.length < DECISIONS) {
          const id = decisionIds[answered.length];
          const r = await request(`${base}/decisions/${id}/answer`, { method: 'POST', token: server.ownerToken,
            body: { option: answered.length % 2 ? 'Yes' : 'No', note: 'under load' } });
          assert.equal(r.status, 200, r.text);
          answered.push(id);
        }
      }
    })();

    const [writerResults] = await Promise.all([writersDone, owner]).finally(() => { writing = false; });
    await reads;
    writeFileSync(stop, '');
    const readerResults = (await Promise.all(readers)).map((r) => ({ ...r, ...JSON.parse(r.out || '{}') }));

    // Once writes stop: Pulse's own turns for the messages finish.
    await waitFor(async () => (await request(`${server.url}api/health`)).body.turns_active === 0,
      { timeoutMs: 30000, what: 'the turns to finish' });
    for (const f of deletedDbFiles(server.proc.pid)) deleted.add(f);

    const acked = writerResults.flatMap((r) => r.out.trim().split('\n').filter(Boolean));
    const outside = look(db);
    const server1 = (await request(`${server.url}api/workflows/substack/agent-log`)).body.rows;
    const cli = pulse(['agent-log', 'show', ...common, '--json']).json.rows;
    const decisions = (await request(`${server.url}api/workflows/substack/decisions?status=all`)).body.decisions;
    for (const f of deletedDbFiles(server.proc.pid)) deleted.add(f);

    // No read failed, outside or through the server.
    for (const r of readerResults) {
      assert.equal(r.code, 0, r.err);
      assert.equal(r.failures, 0, `an outside read failed: ${JSON.stringify(r.errors)}`);
      assert.ok(r.reads > 0);
    }
    assert.deepEqual(httpFailures, [], 'every HTTP request was answered');
    // The server never held a database file whose name was gone.
    assert.deepEqual([...deleted], [], `the server (pid ${serverPids.join(', ')}) held deleted database files`);
    assert.deepEqual(outside.integrity, ['ok']);

    // Every acknowledged event is stored.
    for (const r of writerResults) assert.equal(r.code, 0, r.err);
    assert.equal(acked.length, WRITERS * AGENTS_PER_WRITER * 2,
      `every event was acknowledged: ${writerResults.map((r) => r.err).join('').slice(0, 500)}`);
    const stored = new Map(outside.agents.map(([s, a, status, result]) => [`${s} ${a}`, { status, result }]));
    const turns = new Map(outside.agents.map(([, , status, , run, error]) => [run, { status, error }]));
    for (const line of acked) {
      const [event, session, agent] = line.split(' ');
      const row = stored.get(`${session} ${agent}`);
      assert.ok(row, `acknowledged ${line}: no row`);
      if (event === 'completed') assert.deepEqual(row, { status: 'completed', result: `done-${agent.slice(1)}` }, line);
    }
    for (const id of answered) {
      assert.ok(outside.decisions.some(([d, status]) => d === id && status === 'answered'), `acknowledged answer of ${id}`);
    }
    assert.equal(answered.length, DECISIONS);
    // An accepted message is a turn whose row exists from the 202 on: it ran
    // (the message is in the conversation), or the SIGKILL cut it and the
    // restarted server recorded it interrupted.
    for (const { text, run } of messages) {
      const said = outside.owner_turns.some((t) => t.includes(text));
      const turn = turns.get(run);
      assert.ok(turn, `acknowledged message "${text}": no row for its turn ${run}`);
      if (kill && turn.status !== 'completed') {
        assert.match(turn.error, /^interrupted: the server stopped/, `"${text}": ${JSON.stringify(turn)}`);
      } else {
        assert.equal(turn.status, 'completed', `"${text}": ${JSON.stringify(turn)}`);
        assert.ok(said, `acknowledged message "${text}" is in the conversation`);
      }
    }
    assert.ok(messages.length > 0, 'some messages were accepted');

    // The server, the CLI and the outside reader agree.
    const key = (rows) => rows.map((r) => `${r.session_id} ${r.agent_id} ${r.status} ${r.result}`).sort();
    assert.deepEqual(key(server1), outside.agents.map(([sn, a, status, result]) => `${sn} ${a} ${status} ${result}`).sort(),
      'the server reads what an outside reader reads');
    assert.deepEqual(server1, cli, 'the server answers what the CLI answers');
    assert.deepEqual(decisions.map((d) => [d.id, d.status]).sort((a, b) => a[0] - b[0]), outside.decisions);
    const outsideReads = readerResults.reduce((n, r) => n + r.reads, 0);
    console.log(`${kill ? 'with a SIGKILL: ' : ''}${acked.length} agent-log events from ${WRITERS} writers, ` +
      `${answered.length} answers and ${messages.length} messages through the server, ` +
      `${outsideReads} outside reads (open, read, close), ${httpReads} HTTP reads`);
  } finally {
    writing = false;
    if (!existsSync(stop)) writeFileSync(stop, '');
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await server.stop();
    tmp.cleanup();
  }
}

test('the server, six agent-log writers and outside SQLite readers share the database: nothing lost, nothing misread',
  { skip, timeout: 120000 }, () => runLoad({ kill: false }));

test('the same load with the server SIGKILLed in the middle and started again: every acknowledged write is there',
  { skip, timeout: 120000 }, () => runLoad({ kill: true }));

test('a --web-root that holds the workspace never serves (nor opens) a database file', { skip }, async () => {
  const tmp = makeTempDir('pulse-integrity-webroot-');
  const ws = makeWorkspace(tmp.dir, { substack: SUBSTACK_CONFIG });
  const common = ['--workspace', ws, '--workflow', 'substack'];
  assert.equal(pulse(['agent-log', 'started', ...common, '--session', 's-1', '--agent', 'a-1']).status, 0);
  const s = await startServer(ws, ['--no-tick', '--web-root', ws]);
  try {
    const shown = await request(`${s.url}Workflow/substack/workflow.json`);
    assert.equal(shown.status, 200, 'the folder is served');
    // Reads that keep the server's pooled connection open on the database.
    assert.equal((await request(`${s.url}api/workflows/substack/agent-log`)).status, 200);
    assert.equal((await request(`${s.url}api/workflows/substack/goal-status`)).status, 200);
    for (const name of ['db.sqlite', 'db.sqlite-wal', 'db.sqlite-shm', 'db.sqlite-journal']) {
      const r = await request(`${s.url}Workflow/substack/db/${name}`);
      assert.equal(r.status, 403, `${name}: ${r.text.slice(0, 100)}`);
      assert.equal(r.body.error, `path: database files are not served: /Workflow/substack/db/${name}`);
    }
    // An outside reader's close then finds the server's locks in place.
    look(join(ws, 'Workflow', 'substack', 'db', 'db.sqlite'));
    assert.equal((await request(`${s.url}api/workflows/substack/agent-log`)).body.rows.length, 1);
    assert.deepEqual(deletedDbFiles(s.proc.pid), []);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
