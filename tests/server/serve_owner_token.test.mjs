// The owner token against the real `pulse serve` and CLI: the workspace holds
// only its hash, the token is shown once, `pulse token rotate` replaces it on
// a running server, and a plaintext token from an earlier version is migrated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync, readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { request, startServer, makeWorkspace, makeTempDir, pulse, SUBSTACK_CONFIG } from './helpers.mjs';

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
