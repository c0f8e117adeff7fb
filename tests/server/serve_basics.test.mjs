// `pulse serve` basics against the real binary: the bound URL, health, the
// owner token file, static files and their root, bad input, SIGTERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, statSync, readFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { request, startServer, makeWorkspace, makeTempDir, SUBSTACK_CONFIG } from './helpers.mjs';

function setup() {
  const tmp = makeTempDir('pulse-serve-basics-');
  const ws = makeWorkspace(tmp.dir, { substack: SUBSTACK_CONFIG, healthy: { pulse: { enabled: true } } });
  const web = join(tmp.dir, 'web');
  const wasm = join(tmp.dir, 'wasm');
  mkdirSync(join(web, 'js'), { recursive: true });
  mkdirSync(wasm, { recursive: true });
  writeFileSync(join(web, 'index.html'), '<!doctype html><title>Pulse</title>');
  writeFileSync(join(web, 'js', 'app.mjs'), 'export const x = 1;\n');
  writeFileSync(join(web, '.hidden'), 'secret');
  writeFileSync(join(wasm, 'pulse.mjs'), 'export default 1;\n');
  writeFileSync(join(wasm, 'pulse.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  writeFileSync(join(tmp.dir, 'outside.txt'), 'outside the web root');
  return { tmp, ws, web, wasm };
}

test('serves health, the owner token hash file and static files from their roots only', async () => {
  const { tmp, ws, web, wasm } = setup();
  const s = await startServer(ws, ['--no-tick', '--web-root', web, '--wasm-root', wasm]);
  try {
    assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const health = await request(`${s.url}api/health`);
    assert.equal(health.status, 200);
    assert.equal(health.body.ok, true);
    assert.equal(health.body.workflows, 2);

    // The workspace keeps only the token's hash (serve_owner_token.test.mjs).
    const hashFile = join(ws, '.pulse', 'owner-token.sha256');
    assert.equal(statSync(hashFile).mode & 0o777, 0o600);
    assert.match(s.ownerToken, /^[0-9a-f]{64}$/);

    const index = await request(s.url);
    assert.equal(index.status, 200);
    assert.match(index.headers.get('content-type'), /text\/html/);
    assert.match(index.text, /<title>Pulse<\/title>/);
    const mod = await request(`${s.url}js/app.mjs`);
    assert.equal(mod.status, 200);
    assert.match(mod.headers.get('content-type'), /javascript/);
    const glue = await request(`${s.url}wasm/pulse.mjs`);
    assert.equal(glue.status, 200);
    const bin = await fetch(`${s.url}wasm/pulse.wasm`);
    assert.equal(bin.headers.get('content-type'), 'application/wasm');

    // Nothing outside the roots, no hidden files, however the path is spelled.
    for (const p of ['.hidden', '%2e%2e/outside.txt', 'js/%2e%2e/%2e%2e/outside.txt', 'wasm/%2e%2e/%2e%2e/outside.txt',
      'js/..%2f..%2foutside.txt', '%2fetc%2fpasswd']) {
      const r = await request(`${s.url}${p}`);
      assert.ok(r.status >= 400 && r.status < 500, `${p}: ${r.status}`);
      assert.equal(typeof r.body.error, 'string', p);
      assert.doesNotMatch(r.text, /outside the web root|secret|root:/);
    }
    const missing = await request(`${s.url}nope.js`);
    assert.equal(missing.status, 404);
    const noApi = await request(`${s.url}api/nope`);
    assert.equal(noApi.status, 404);
    assert.match(noApi.body.error, /no such API route/);
    const getMcp = await request(`${s.url}mcp`);
    assert.equal(getMcp.status, 405);
  } finally {
    const { code } = await s.stop();
    assert.equal(code, 0);
    tmp.cleanup();
  }
});

test('the owner token survives a restart; write routes need it and change nothing without it', async () => {
  const { tmp, ws } = setup();
  let s = await startServer(ws, ['--no-tick']);
  const first = s.ownerToken;
  await s.stop();
  s = await startServer(ws, ['--no-tick']);
  try {
    assert.equal(s.ownerToken, first);
    // A workflow's first open in this process (here a read) makes its
    // database; the snapshot is taken after it, so what is compared is what
    // the refused writes did.
    assert.equal((await request(`${s.url}api/workflows/substack/decisions`)).status, 200);
    const before = readdirSync(join(ws, 'Workflow', 'substack')).sort();
    for (const [method, path, body] of [
      ['POST', 'api/workflows/substack/messages', { text: 'hello' }],
      ['POST', 'api/workflows/substack/goal-check', {}],
      ['POST', 'api/workflows/substack/decisions/1/answer', { accept: true }],
      ['POST', 'api/workflows/substack/decisions/1/outcome', { result: 'x' }],
      ['PUT', 'api/workflows/substack/memory', { text: '# Goal memory\n', base_hash: '' }],
    ]) {
      const none = await request(`${s.url}${path}`, { method, body });
      assert.equal(none.status, 401, `${method} ${path} without a token`);
      assert.match(none.body.error, /owner token/);
      const wrong = await request(`${s.url}${path}`, { method, body, token: 'f'.repeat(64) });
      assert.equal(wrong.status, 401, `${method} ${path} with a wrong token`);
      const session = await request(`${s.url}${path}`, { method, body, headers: { authorization: `Basic ${first}` } });
      assert.equal(session.status, 401);
    }
    const agentLog = await request(`${s.url}api/workflows/substack/agent-log`);
    assert.equal(agentLog.status, 200, agentLog.text);
    assert.deepEqual(agentLog.body.rows, []);
    assert.ok(!existsSync(join(ws, 'Workflow', 'substack', 'memory', 'goal.md')));
    assert.deepEqual(readdirSync(join(ws, 'Workflow', 'substack')).sort(), before);
    const auth = await request(`${s.url}api/auth`, { token: first });
    assert.equal(auth.status, 200);
    assert.equal((await request(`${s.url}api/auth`)).status, 401);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('bad input gets a 4xx with a JSON reason and touches nothing outside the workspace', async () => {
  const { tmp, ws } = setup();
  const empty = join(tmp.dir, 'empty-web');
  mkdirSync(empty);
  const s = await startServer(ws, ['--no-tick', '--max-body', '4096', '--web-root', empty]);
  const owner = s.ownerToken;
  try {
    // Without the tab's files, / is a small status page, never a blank one.
    const page = await request(s.url);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type'), /text\/html/);
    assert.match(page.text, /\/api\/workflows/);
    assert.equal((await request(`${s.url}app.mjs`)).status, 404);
    // Unknown workflow and names that try to leave Workflow/.
    const unknown = await request(`${s.url}api/workflows/nope/goal-status`);
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.error, /nope/);
    assert.ok(!existsSync(join(ws, 'Workflow', 'nope')));
    for (const name of ['%2e%2e', '..', '.pulse', '%2e%2e%2f%2e%2e%2ftmp', 'a%2Fb', '%2Fetc', 'a%5Cb', 'x%00y']) {
      const r = await request(`${s.url}api/workflows/${name}/goal-status`);
      assert.ok(r.status >= 400 && r.status < 500, `${name}: ${r.status}`);
      assert.equal(typeof r.body.error, 'string', name);
    }
    // Malformed and non-object bodies.
    for (const raw of ['{"text": ', '[1,2]', '"text"', 'nul']) {
      const r = await request(`${s.url}api/workflows/substack/messages`, {
        method: 'POST', token: owner, raw, headers: { 'content-type': 'application/json' },
      });
      assert.equal(r.status, 400, raw);
      assert.match(r.body.error, /request body/);
    }
    const noText = await request(`${s.url}api/workflows/substack/messages`, { method: 'POST', token: owner, body: {} });
    assert.equal(noText.status, 400);
    assert.match(noText.body.error, /text/);
    // Oversized bodies.
    const big = await request(`${s.url}api/workflows/substack/messages`, {
      method: 'POST', token: owner, raw: JSON.stringify({ text: 'x'.repeat(10000) }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(big.status, 413);
    assert.match(big.body.error, /larger/);
    // A workflow whose workflow.json is malformed: named, with the file and the problem; the others go on.
    mkdirSync(join(ws, 'Workflow', 'broken'));
    writeFileSync(join(ws, 'Workflow', 'broken', 'workflow.json'), '{"goal": ');
    const broken = await request(`${s.url}api/workflows/broken/goal-status`);
    assert.equal(broken.status, 400);
    assert.match(broken.body.error, /broken\/workflow\.json: malformed JSON/);
    const listed = (await request(`${s.url}api/workflows`)).body.workflows;
    assert.match(listed.find((w) => w.name === 'broken').error, /malformed JSON/);
    // The server goes on.
    assert.equal((await request(`${s.url}api/health`)).status, 200);
    // Nothing appeared outside the workspace's own folders.
    assert.deepEqual(readdirSync(ws).sort(), ['.pulse', 'Workflow']);
    assert.deepEqual(readdirSync(join(ws, 'Workflow')).sort(), ['broken', 'healthy', 'substack']);
    assert.deepEqual(readdirSync(join(ws, 'Workflow', 'broken')), ['workflow.json']);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('a workspace that does not exist is a usage error, and SIGINT stops the server cleanly', async () => {
  const { tmp, ws } = setup();
  const s = await startServer(ws, ['--no-tick']);
  const { code } = await s.stop('SIGINT');
  assert.equal(code, 0);
  const { spawnSync } = await import('node:child_process');
  const { PULSE_BIN } = await import('./helpers.mjs');
  const r = spawnSync(PULSE_BIN, ['serve', '--workspace', join(tmp.dir, 'missing'), '--port', '0'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /missing: workspace directory does not exist/);
  assert.ok(!existsSync(join(tmp.dir, 'missing')));
  tmp.cleanup();
});
