// GET /api/workflows/<wf>/snapshot, the Pulse tab's Inspect copy: only the
// owner gets it; the copy is a whole SQLite database in rollback mode that
// an outside reader (Python's sqlite3) checks; and taken while the server
// writes (decision requests, each its row and its "created" event in one
// transaction), every snapshot holds whole transactions and every decision
// acknowledged before it was asked for (a copy of db.sqlite alone would miss
// those still in its -wal). Nothing is left in the workspace afterwards.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTempDir, makeWorkspace, startServer, request, SUBSTACK_CONFIG, PULSE_BIN } from './helpers.mjs';
import { skipUnless, fileNeed, missingOf } from '../strict.mjs';

const python = spawnSync('python3', ['-c', 'import sqlite3'], { encoding: 'utf8' });
const skip = skipUnless(import.meta.url, missingOf([
  fileNeed(PULSE_BIN, 'run scripts/setup.sh'),
  [python.status === 0, 'python3 with its sqlite3 module (scripts/setup.sh installs it): the outside reader of the copies'],
]));

// What an outside reader finds in a copy.
const LOOK = `
import json, sqlite3, sys
c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
q = lambda s: c.execute(s).fetchone()[0]
print(json.dumps({
  'integrity': q('PRAGMA integrity_check'), 'journal_mode': q('PRAGMA journal_mode'),
  'decisions': q('SELECT count(*) FROM pulse_decisions'),
  'created': q("SELECT count(*) FROM pulse_decision_events WHERE kind = 'created'"),
  'orphans': q("SELECT count(*) FROM pulse_decisions d WHERE NOT EXISTS (SELECT 1 FROM pulse_decision_events e WHERE e.decision_id = d.id AND e.kind = 'created')"),
  'tables': q("SELECT count(*) FROM sqlite_schema WHERE type = 'table'")}))
`;

let tmp;
let server;
let ws;
before(async () => {
  if (skip) return;
  tmp = makeTempDir('pulse-snapshot-');
  ws = makeWorkspace(tmp.dir, { substack: SUBSTACK_CONFIG });
  server = await startServer(ws, ['--no-tick']);
});
after(async () => {
  if (server) await server.stop();
  if (tmp) tmp.cleanup();
});

const snapshotUrl = () => `${server.url}api/workflows/substack/snapshot`;

async function takeSnapshot(file) {
  const res = await fetch(snapshotUrl(), { headers: { authorization: `Bearer ${server.ownerToken}` } });
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(res.headers.get('content-type'), 'application/vnd.sqlite3');
  assert.equal(res.headers.get('cache-control'), 'no-store');
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.equal(bytes.subarray(0, 16).toString('latin1'), 'SQLite format 3\0');
  writeFileSync(file, bytes);
  const look = spawnSync('python3', ['-c', LOOK, file], { encoding: 'utf8' });
  assert.equal(look.status, 0, look.stderr);
  return JSON.parse(look.stdout);
}

test('only the owner gets a snapshot: no token and a wrong one are 401 with a reason', { skip }, async () => {
  const none = await request(snapshotUrl());
  assert.equal(none.status, 401);
  assert.match(none.body.error, /^owner token required/);
  const wrong = await request(snapshotUrl(), { token: 'f'.repeat(64) });
  assert.equal(wrong.status, 401);
  assert.equal(wrong.body.error, 'wrong owner token');
  const missing = await request(`${server.url}api/workflows/nope/snapshot`, { token: server.ownerToken });
  assert.equal(missing.status, 404);
  assert.match(missing.body.error, /workflow "nope" does not exist/);
});

test('a snapshot taken while the server writes is one consistent state holding every acknowledged write', { skip }, async () => {
  const out = mkdtempSync(join(tmpdir(), 'pulse-snapshot-copies-'));
  try {
    let acknowledged = 0;
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const r = await request(`${server.url}api/workflows/substack/call/decision.create`, {
          method: 'POST', token: server.ownerToken, body: { question: `Question ${i}, "quoted", with a comma?`, options: ['yes', 'no'] },
        });
        assert.equal(r.status, 200, r.text);
        acknowledged++;
      }
    })();
    const looks = [];
    for (let i = 0; i < 8; i++) {
      const before = acknowledged;
      const look = await takeSnapshot(join(out, `copy-${i}.sqlite`));
      looks.push(look);
      assert.equal(look.integrity, 'ok');
      assert.equal(look.journal_mode, 'delete');
      assert.equal(look.orphans, 0, `copy ${i}: a decision without its created event`);
      assert.equal(look.decisions, look.created, `copy ${i}`);
      assert.ok(look.decisions >= before, `copy ${i} has ${look.decisions} decisions; ${before} were acknowledged before it was asked for`);
      assert.ok(look.tables > 10);
    }
    writing = false;
    await writer;
    assert.ok(acknowledged > 0);
    assert.ok(looks[looks.length - 1].decisions > looks[0].decisions, 'the server wrote between the snapshots');
    // Nothing is left behind: the copy was unlinked once open.
    const dir = join(ws, '.pulse', 'snapshots');
    assert.deepEqual(existsSync(dir) ? readdirSync(dir) : [], []);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
