// Edits of a workflow against readers, as an attacker would race them
// (issue #32): `pulse focus` CLI processes SIGKILLed mid-edit in a loop while
// another process reads workflow.json (it is never missing, never partial),
// and the real server answering reads while CLI edits run (never a 5xx).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PULSE_BIN, makeTempDir, makeWorkspace, pulse, request, startServer, SUBSTACK_CONFIG } from './helpers.mjs';

// Reads the file in a tight loop until `stop` exists; prints what it saw.
const READER = `
import { readFileSync, existsSync } from 'node:fs';
const [path, stop] = process.argv.slice(2);
let reads = 0, missing = 0, bad = 0, last = '';
while (!existsSync(stop)) {
  for (let i = 0; i < 200; i++) {
    let text;
    try { text = readFileSync(path, 'utf8'); } catch (e) { if (e.code === 'ENOENT') { missing++; continue; } throw e; }
    reads++;
    try { JSON.parse(text); } catch { bad++; last = text.slice(0, 80); }
  }
}
process.stdout.write(JSON.stringify({ reads, missing, bad, last }));
`;

function startReader(dir, path) {
  const script = join(dir, 'reader.mjs');
  writeFileSync(script, READER);
  const stop = join(dir, 'stop-reader');
  const proc = spawn(process.execPath, [script, path, stop], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => { out += d; });
  proc.stderr.on('data', (d) => { err += d; });
  const done = new Promise((resolve) => proc.on('exit', resolve));
  return {
    async finish() {
      writeFileSync(stop, '');
      const code = await done;
      assert.equal(code, 0, err);
      return JSON.parse(out);
    },
  };
}

const EDITS = Number(process.env.EDITS || 30);
const focus = (ws, args) => [PULSE_BIN, ['focus', ...args, '--workspace', ws, '--workflow', 'substack']];

// Runs `pulse focus extend` and SIGKILLs it after `delayMs` (or lets it end).
function killedEdit(ws, day, delayMs) {
  const [bin, args] = focus(ws, ['extend', '--id', 'fa-1', '--end-date', `2027-12-${String(day).padStart(2, '0')}`,
    '--now', '2026-10-07T12:00:00Z']);
  return new Promise((resolve) => {
    const p = spawn(bin, args, { stdio: 'ignore' });
    const timer = setTimeout(() => p.kill('SIGKILL'), delayMs);
    p.on('exit', (code, signal) => { clearTimeout(timer); resolve(signal === 'SIGKILL' ? 'killed' : code); });
  });
}

test('workflow.json is never missing or partial while `pulse focus` edits are SIGKILLed mid-edit in a loop', { timeout: 120000 }, async () => {
  const tmp = makeTempDir('pulse-edit-kill-');
  try {
    const ws = makeWorkspace(tmp.dir, { substack: SUBSTACK_CONFIG });
    const path = join(ws, 'Workflow', 'substack', 'workflow.json');
    const [bin, args] = focus(ws, ['add', '--title', 'referrals', '--end-date', '2027-12-01', '--now', '2026-10-07T12:00:00Z']);
    const added = spawnSync(bin, args, { encoding: 'utf8' });
    assert.equal(added.status, 0, added.stderr);
    // How long one edit takes here: the kills land across its whole run.
    const t0 = Date.now();
    assert.equal(await killedEdit(ws, 2, 60000), 0);
    const oneEdit = Math.max(5, Date.now() - t0);
    const reader = startReader(tmp.dir, path);
    const outcomes = { killed: 0, done: 0 };
    for (let i = 0; i < 100; i++) {
      const r = await killedEdit(ws, 3 + (i % 25), Math.floor(oneEdit * (0.3 + 0.9 * ((i * 37) % 100) / 100)));
      if (r === 'killed') outcomes.killed++;
      else outcomes.done++;
    }
    const seen = await reader.finish();
    console.log(`# ${outcomes.killed} edits killed, ${outcomes.done} finished (one edit ~${oneEdit} ms); the reader read ${seen.reads} times`);
    assert.ok(outcomes.killed >= 20 && outcomes.done >= 10, JSON.stringify(outcomes));
    assert.equal(seen.missing, 0, `workflow.json was missing ${seen.missing} times`);
    assert.equal(seen.bad, 0, `workflow.json did not parse ${seen.bad} times: ${seen.last}`);
    assert.ok(JSON.parse(readFileSync(path, 'utf8')).pulse.focus_area_details);
    // A finished edit removes what killed ones left beside the file.
    assert.equal(await killedEdit(ws, 28, 60000), 0);
    const left = readdirSync(join(ws, 'Workflow', 'substack')).filter((n) => n.startsWith('workflow.json.'));
    assert.deepEqual(left, [], 'leftovers of killed edits');
  } finally {
    tmp.cleanup();
  }
});

// The real server answering reads while `pulse focus` CLI processes edit the
// same workflow (workflow.json and its database): every answer is a 200,
// never "disk I/O error (522)" or any other 5xx.
test('reads through the server while `pulse focus` CLI edits run never answer 5xx', { timeout: 120000 }, async () => {
  const tmp = makeTempDir('pulse-edit-reads-');
  const ws = makeWorkspace(tmp.dir, { substack: SUBSTACK_CONFIG });
  const [bin, args] = focus(ws, ['add', '--title', 'referrals', '--end-date', '2027-12-01', '--now', '2026-10-07T12:00:00Z']);
  assert.equal(spawnSync(bin, args, { encoding: 'utf8' }).status, 0);
  const s = await startServer(ws, ['--tick-seconds', '0.5']);
  try {
    const paths = ['', '/focus-areas', '/goal-status', '/memory', '/agent-log', '/decisions', '/facts', '/workflow-review'];
    const statuses = new Map();
    const failures = [];
    let stop = false;
    const readers = [...Array(Number(process.env.READERS || 3)).keys()].map(async (r) => {
      for (let i = r; !stop; i++) {
        const path = paths[i % paths.length];
        let res;
        try {
          res = await request(`${s.url}api/workflows/substack${path}`);
        } catch (e) {
          failures.push(`${path}: ${e.message} ${e.cause ? e.cause.message : ''}`);
          continue;
        }
        statuses.set(res.status, (statuses.get(res.status) || 0) + 1);
        if (res.status >= 500) failures.push(`${path}: ${res.status} ${res.text.slice(0, 160)}`);
      }
    });
    const editors = [...Array(Number(process.env.EDITORS || 2)).keys()].map(async (e) => {
      for (let i = 0; i < EDITS; i++) assert.equal(await killedEdit(ws, 1 + ((i * 2 + e) % 28), 60000), 0);
    });
    await Promise.all(editors);
    stop = true;
    await Promise.all(readers);
    console.log(`# reads during ${EDITS * editors.length} CLI edits: ${JSON.stringify(Object.fromEntries(statuses))}`);
    assert.deepEqual(failures.slice(0, 10), [], `${failures.length} reads failed; the server said: ${(s.stdout + s.stderr).slice(-2000)}`);
    assert.ok((statuses.get(200) || 0) > 100, 'the reads ran throughout');
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
