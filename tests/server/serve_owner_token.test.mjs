// The owner token against the real `pulse serve` and CLI: the workspace holds
// only its hash, the token is shown once, `pulse token rotate` replaces it on
// a running server, and a plaintext token from an earlier version is migrated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync, readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { request, startServer, makeWorkspace, makeTempDir, pulse, setNow, SUBSTACK_CONFIG } from './helpers.mjs';

const sha256 = (t) => createHash('sha256').update(t).digest('hex');

// Every byte under .pulse/, as a reader running as the same user sees it.
function dotPulseText(ws) {
  const dir = join(ws, '.pulse');
  return readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
}

test('the workspace keeps only the hash; the token is shown once, when it is made', async () => {
  const tmp = makeTempDir('pulse-owner-token-');
  const ws = makeWorkspace(tmp.dir, { substack: SUBSTACK_CONFIG });
  let s = await startServer(ws, ['--no-tick']);
  try {
    const token = s.ownerToken;
    assert.match(token, /^[0-9a-f]{64}$/);
    assert.match(s.stdout, new RegExp(`#token=${token}`));
    assert.ok(!existsSync(join(ws, '.pulse', 'owner-token')));
    const stored = dotPulseText(ws);
    assert.doesNotMatch(stored, new RegExp(token));
    assert.match(stored, new RegExp(sha256(token)));
    assert.equal(statSync(join(ws, '.pulse', 'owner-token.sha256')).mode & 0o777, 0o600);
    // What a runner reading .pulse/ finds is refused as a token.
    for (const found of stored.split(/\s+/).filter(Boolean)) {
      assert.equal((await request(`${s.url}api/auth`, { token: found })).status, 401);
    }
    assert.equal((await request(`${s.url}api/auth`, { token })).status, 200);
    await s.stop();
    s = await startServer(ws, ['--no-tick']);
    assert.doesNotMatch(s.stdout, /#token=/);
    assert.match(s.stdout, /pulse token rotate/);
    assert.equal((await request(`${s.url}api/auth`, { token })).status, 200);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('pulse token rotate: a new token, printed once; the running server refuses the old one', async () => {
  const tmp = makeTempDir('pulse-owner-rotate-');
  const ws = makeWorkspace(tmp.dir, { substack: SUBSTACK_CONFIG });
  const s = await startServer(ws, ['--no-tick']);
  try {
    const old = s.ownerToken;
    const r = pulse(['token', 'rotate', '--workspace', ws]);
    assert.equal(r.status, 0, r.stderr);
    const fresh = r.stdout.trim();
    assert.match(fresh, /^[0-9a-f]{64}$/);
    assert.notEqual(fresh, old);
    assert.match(r.stderr, /shown once/);
    assert.doesNotMatch(dotPulseText(ws), new RegExp(fresh));
    assert.equal((await request(`${s.url}api/auth`, { token: old })).status, 401);
    assert.equal((await request(`${s.url}api/auth`, { token: fresh })).status, 200);
    const answer = await request(`${s.url}api/workflows/substack/decisions/1/answer`, { method: 'POST', token: old, body: { accept: true } });
    assert.equal(answer.status, 401);
    const missing = pulse(['token', 'rotate', '--workspace', join(tmp.dir, 'nope')]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /nope: workspace directory does not exist/);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('a plaintext owner-token from an earlier version is hashed and deleted; it keeps working', async () => {
  const tmp = makeTempDir('pulse-owner-migrate-');
  const ws = makeWorkspace(tmp.dir, { substack: SUBSTACK_CONFIG });
  const legacy = 'a'.repeat(24) + 'legacytoken';
  mkdirSync(join(ws, '.pulse'), { recursive: true });
  writeFileSync(join(ws, '.pulse', 'owner-token'), `${legacy}\n`, { mode: 0o600 });
  const s = await startServer(ws, ['--no-tick']);
  try {
    assert.doesNotMatch(s.stdout, /#token=/);
    assert.ok(!existsSync(join(ws, '.pulse', 'owner-token')));
    assert.doesNotMatch(dotPulseText(ws), new RegExp(legacy));
    assert.equal((await request(`${s.url}api/auth`, { token: legacy })).status, 200);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

// Owner-only answers over HTTP (a leg of docs/decisions.md): without the
// owner token, with a wrong one, or with a session's token (a runner's, the
// one it is handed), both answer routes say 401 and nothing changes: the
// decision stays pending with the same log, goal memory is not written. The
// owner's token answers, as the owner, whatever session the body names.
test('an answer over HTTP needs the owner token: none, a wrong one or a session token is 401 and changes nothing', async () => {
  const tmp = makeTempDir('pulse-owner-answer-');
  const ws = makeWorkspace(tmp.dir, { substack: SUBSTACK_CONFIG });
  const NOW = '2026-10-07T12:00:00Z';
  const nowFile = join(tmp.dir, 'now.txt');
  setNow(nowFile, NOW);
  const cli = (...args) => pulse([...args, '--workspace', ws, '--workflow', 'substack', '--now', NOW]);
  const id = cli('decision', 'create', '--question', 'Resume the schedules?', '--option', 'yes', '--option', 'no').stdout.trim();
  assert.match(id, /^\d+$/);
  assert.equal(cli('decision', 'recommend', '--id', id, '--option', 'yes', '--why', 'w', '--confidence', 'high').status, 0);
  const session = cli('session', 'open', '--turn', 'goal_work').json;
  const s = await startServer(ws, ['--no-tick', '--now-file', nowFile]);
  try {
    const decision = async () => (await request(`${s.url}api/workflows/substack/decisions?status=all`)).body.decisions
      .find((d) => String(d.id) === id);
    const before = await decision();
    assert.equal(before.status, 'pending');
    const routes = [[`api/workflows/substack/decisions/${id}/answer`, { accept: true }],
      ['api/workflows/substack/call/decision.answer', { id: Number(id), accept: true }]];
    for (const [path, body] of routes) {
      for (const [who, token] of [['no token', undefined], ['a wrong token', 'f'.repeat(64)], ['a session token', session.token]]) {
        const r = await request(`${s.url}${path}`, { method: 'POST', token, body });
        assert.equal(r.status, 401, `${path} with ${who}: ${JSON.stringify(r.body)}`);
        assert.match(r.body.error, /owner token/, `${path} with ${who}`);
      }
    }
    assert.deepEqual(await decision(), before, 'a refused request changed the decision or its log');
    assert.ok(!existsSync(join(ws, 'Workflow', 'substack', 'memory', 'goal.md')), 'goal memory was written');
    // The owner's token answers, as the owner: a session in the body is dropped.
    const ok = await request(`${s.url}${routes[0][0]}`, { method: 'POST', token: s.ownerToken, body: { accept: true, session: session.session } });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const after = await decision();
    assert.equal(after.status, 'answered');
    assert.equal(after.answer.by, 'owner');
    assert.equal(after.answer.session, '');
    assert.match(readFileSync(join(ws, 'Workflow', 'substack', 'memory', 'goal.md'), 'utf8'), /\[owner answer\] "Resume the schedules\?" → yes/);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

// The owner token never has to sit on a command line (where every local
// process, a runner included, could read it from /proc/<pid>/cmdline): rotate
// writes it as a header line curl sends with -H @FILE.
test('pulse token rotate --header-file writes a 0600 header file for curl -H @FILE and prints no token', async () => {
  const tmp = makeTempDir('pulse-owner-header-');
  const ws = makeWorkspace(tmp.dir, { substack: SUBSTACK_CONFIG });
  const s = await startServer(ws, ['--no-tick']);
  try {
    const header = join(tmp.dir, 'owner.header');
    writeFileSync(header, 'old contents\n', { mode: 0o644 });
    const r = pulse(['token', 'rotate', '--workspace', ws, '--header-file', header]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /written to .*owner\.header/);
    const text = readFileSync(header, 'utf8');
    const m = text.match(/^Authorization: Bearer ([0-9a-f]{64})\n$/);
    assert.ok(m, text);
    assert.equal(statSync(header).mode & 0o777, 0o600);
    assert.doesNotMatch(r.stderr, new RegExp(m[1]));
    // The old token is gone, the one in the file works, through curl reading the file.
    assert.equal((await request(`${s.url}api/auth`, { token: s.ownerToken })).status, 401);
    const curl = spawnSync('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', `@${header}`, `${s.url}api/auth`], { encoding: 'utf8' });
    assert.equal(curl.status, 0, `curl is needed here: ${curl.error || curl.stderr}`);
    assert.equal(curl.stdout, '200');
    // A file that cannot be written: exit 2, and the token in the file still works.
    const bad = pulse(['token', 'rotate', '--workspace', ws, '--header-file', join(tmp.dir, 'no-such-dir', 'h')]);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /^pulse: --header-file .*no-such-dir\/h: No such file or directory\n$/);
    assert.equal((await request(`${s.url}api/auth`, { token: m[1] })).status, 200);
    const json = pulse(['token', 'rotate', '--workspace', ws, '--header-file', header, '--json']);
    assert.deepEqual(Object.keys(json.json).sort(), ['hash_file', 'header_file']);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
