// `pulse serve` under hostile input, against the real binary on loopback:
// deep JSON, bodies past --max-body in every framing, slow and idle
// connections, foreign Host names and cross-site writes, the /wasm/ folder's
// build files, a second server on the same port, and bad UTF-8.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request, startServer, makeWorkspace, makeTempDir, pulse, waitFor, SUBSTACK_CONFIG } from './helpers.mjs';

function setup(prefix) {
  const tmp = makeTempDir(prefix);
  const ws = makeWorkspace(tmp.dir, { substack: SUBSTACK_CONFIG });
  return { tmp, ws };
}

const portOf = (url) => Number(new URL(url).port);

// One request with headers fetch() will not send (Host, Origin...).
function rawRequest(url, { method = 'GET', path = '/api/health', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request({ host: u.hostname, port: u.port, method, path, headers, setHost: !('Host' in headers), agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => { text += d; });
        res.on('end', () => {
          let parsed;
          try { parsed = JSON.parse(text); } catch { parsed = undefined; }
          resolve({ status: res.statusCode, text, body: parsed, headers: res.headers });
        });
      });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

// Opens a socket, writes `head`, then keeps writing `next()` chunks until the
// server answers or `limit` bytes went out. Resolves with the answer's text
// and how many body bytes were sent.
function pushBody(url, head, next, limit) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(portOf(url), '127.0.0.1');
    let answer = '';
    let sent = 0;
    let done = false;
    const finish = () => { if (!done) { done = true; sock.destroy(); resolve({ answer, sent }); } };
    sock.on('data', (d) => { answer += d; if (/\r\n\r\n/.test(answer)) setTimeout(finish, 50); });
    sock.on('error', () => finish());
    sock.on('close', finish);
    sock.on('connect', async () => {
      sock.write(head);
      while (!done && sent < limit) {
        const chunk = next();
        sent += chunk.length;
        if (!sock.write(chunk)) await new Promise((r) => { sock.once('drain', r); sock.once('close', r); });
        await new Promise((r) => setImmediate(r));  // let the answer in
      }
      if (!done) setTimeout(finish, 5000).unref();
    });
    setTimeout(() => { if (!done) reject(new Error('no answer')); }, 60000).unref();
  });
}

test('a body of 200 KB of nested brackets gets 400, not a crash', async () => {
  const { tmp, ws } = setup('pulse-harden-json-');
  const s = await startServer(ws, ['--no-tick']);
  try {
    const deep = '['.repeat(200 * 1024);
    for (const [path, token] of [['api/workflows/substack/call/goal.check', undefined],
      ['api/workflows/substack/decisions/1/answer', s.ownerToken], ['api/workflows/substack/messages', s.ownerToken]]) {
      const r = await request(`${s.url}${path}`, { method: 'POST', token, raw: deep, headers: { 'content-type': 'application/json' } });
      assert.equal(r.status, 400, `${path}: ${r.text.slice(0, 200)}`);
      assert.match(r.body.error, /request body: JSON nested deeper than 64 levels/);
    }
    const objects = '{"a":'.repeat(40000);
    const r = await request(`${s.url}api/workflows/substack/call/goal.check`, { method: 'POST', raw: objects });
    assert.equal(r.status, 400);
    assert.equal((await request(`${s.url}api/health`)).status, 200);
  } finally {
    const { code } = await s.stop();
    assert.equal(code, 0);
    tmp.cleanup();
  }
});

test('--max-body holds for chunked bodies, bodies without a length and declared lengths; nothing is echoed', async () => {
  const { tmp, ws } = setup('pulse-harden-body-');
  const s = await startServer(ws, ['--no-tick', '--max-body', '4096']);
  try {
    const head = (path, extra) => `POST /${path} HTTP/1.1\r\nHost: 127.0.0.1:${portOf(s.url)}\r\n` +
      `Authorization: Bearer ${s.ownerToken}\r\nContent-Type: application/json\r\n${extra}\r\n`;
    const piece = `"SECRETMARK-${'x'.repeat(1000)}",`;
    const chunk = () => `${Buffer.byteLength(piece).toString(16)}\r\n${piece}\r\n`;
    for (const path of ['api/workflows/substack/call/goal.check', 'api/workflows/substack/messages', 'no/such/route', 'mcp']) {
      const { answer, sent } = await pushBody(s.url, head(path, 'Transfer-Encoding: chunked\r\n'), chunk, 64 << 20);
      assert.match(answer, /^HTTP\/1\.1 413 /, `${path}: ${answer.slice(0, 100)}`);
      assert.ok(sent < 64 << 20, `${path}: the server read the whole body before refusing it`);
      assert.doesNotMatch(answer, /SECRETMARK/);
    }
    // Declared too large: refused before a byte of the body is read.
    const declared = await pushBody(s.url, head('api/workflows/substack/messages', `Content-Length: ${300 << 20}\r\n`), () => '', 0);
    assert.match(declared.answer, /^HTTP\/1\.1 413 /);
    // Neither length nor chunked: no body (RFC 9112 6.3); what follows is not read as one.
    const unframed = await pushBody(s.url, head('api/workflows/substack/messages', 'Connection: close\r\n'), () => piece, 64 << 20);
    assert.match(unframed.answer, /^HTTP\/1\.1 400 /);
    assert.match(unframed.answer, /\\"text\\" \(the message to Pulse\) is required/);
    assert.ok(unframed.sent < 64 << 20);
    // A small chunked body is fine.
    const small = await pushBody(s.url, head('api/workflows/substack/call/goal.check', 'Transfer-Encoding: chunked\r\n'),
      (() => { let n = 0; return () => (n++ === 0 ? '2\r\n{}\r\n0\r\n\r\n' : ''); })(), 1);
    assert.match(small.answer, /^HTTP\/1\.1 200 /);
    assert.equal((await request(`${s.url}api/health`)).status, 200);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

// Writes `text` on one connection and collects what comes back until
// `count` answers arrived (each read whole by its Content-Length), the
// server closed, or `timeoutMs` passed.
function exchange(url, text, count, timeoutMs = 10000) {
  return new Promise((resolve) => {
    const sock = net.connect(portOf(url), '127.0.0.1', () => sock.write(text));
    let got = '';
    const answers = () => {
      const out = [];
      let rest = got;
      for (;;) {
        const end = rest.indexOf('\r\n\r\n');
        if (end < 0) return out;
        const length = Number((/content-length: *(\d+)/i.exec(rest.slice(0, end)) || [0, 0])[1]);
        if (rest.length < end + 4 + length) return out;
        out.push({ status: Number(rest.slice(9, 12)), body: rest.slice(end + 4, end + 4 + length) });
        rest = rest.slice(end + 4 + length);
      }
    };
    const finish = () => { clearTimeout(timer); sock.destroy(); resolve(answers()); };
    const timer = setTimeout(finish, timeoutMs);
    sock.on('data', (d) => { got += d; if (answers().length >= count) finish(); });
    sock.on('error', finish);
    sock.on('close', finish);
  });
}

test('a POST with neither Content-Length nor Transfer-Encoding has an empty body, and the connection goes on', async () => {
  const { tmp, ws } = setup('pulse-harden-bodiless-');
  const s = await startServer(ws, ['--no-tick']);
  try {
    const host = `Host: 127.0.0.1:${portOf(s.url)}\r\n`;
    // As `curl -X POST .../goal-check` sends it: no body, no framing header.
    const answers = await exchange(s.url,
      `POST /api/workflows/substack/goal-check HTTP/1.1\r\n${host}Authorization: Bearer ${s.ownerToken}\r\n\r\n` +
      `POST /api/workflows/substack/call/goal.check HTTP/1.1\r\n${host}\r\n` +
      `GET /api/health HTTP/1.1\r\n${host}Connection: close\r\n\r\n`, 3);
    assert.equal(answers.length, 3, `three answers on one connection: ${JSON.stringify(answers).slice(0, 300)}`);
    assert.equal(answers[0].status, 202, answers[0].body);
    assert.equal(JSON.parse(answers[0].body).turn.kind, 'goal_check');
    assert.equal(answers[1].status, 200, answers[1].body);
    assert.equal(JSON.parse(answers[1].body).result.workflow, 'substack');
    assert.equal(answers[2].status, 200, answers[2].body);
    // Still refused without the owner's token, bodiless or not.
    const anon = await exchange(s.url, `POST /api/workflows/substack/goal-check HTTP/1.1\r\n${host}Connection: close\r\n\r\n`, 1);
    assert.equal(anon[0].status, 401, anon[0].body);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('slow and idle connections do not stop the server; at the per-client cap the oldest waiting connection makes room', async () => {
  const { tmp, ws } = setup('pulse-harden-slow-');
  const s = await startServer(ws, ['--no-tick', '--threads', '4', '--header-timeout', '30']);
  const sockets = [];
  const timers = [];
  try {
    const open = () => new Promise((resolve) => {
      const sock = net.connect(portOf(s.url), '127.0.0.1', () => resolve(sock));
      sock.on('error', () => {});
      sockets.push(sock);
    });
    // 32 clients trickle a header one byte at a time; 32 say nothing.
    const line = `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${portOf(s.url)}\r\nX-Slow: `;
    for (let i = 0; i < 32; i++) {
      const sock = await open();
      let k = 0;
      timers.push(setInterval(() => { sock.write(line[k % line.length] || 'a'); k++; }, 200));
    }
    for (let i = 0; i < 32; i++) await open();
    await new Promise((r) => setTimeout(r, 1000));
    // Health answers (a generous bound, not a timing assertion) while all 64
    // are open.
    await waitFor(async () => {
      const health = await request(`${s.url}api/health`, { signal: AbortSignal.timeout(10000) });
      assert.equal(health.status, 200);
      return health.body.connections >= 64;
    }, { what: 'health counting the 64 open connections', timeoutMs: 15000 });
  } finally {
    timers.forEach(clearInterval);
    sockets.forEach((x) => x.destroy());
    await s.stop();
  }

  // At the per-client cap, the connection that waited longest without a
  // request makes room: holding connections open locks nobody out.
  // Each sends the first byte of a request and no more: the listening socket
  // defers accept() until bytes arrive (TCP_DEFER_ACCEPT), so a connection
  // that sends nothing reaches the server only a second or more later, in
  // whatever order the kernel's timers release them, and "oldest" would be
  // the kernel's order, not the test's. The first one gets a head start.
  const capped = await startServer(ws, ['--no-tick', '--max-connections-per-client', '16', '--header-timeout', '3']);
  try {
    const idle = [];
    const closed = new Set();
    for (let i = 0; i < 100; i++) {
      idle.push(await new Promise((resolve) => {
        const k = net.connect(portOf(capped.url), '127.0.0.1', () => { k.write('G'); resolve(k); });
        k.on('error', () => {});
        k.resume();  // reads what comes (a 408 at the header timeout), so the close is seen
        k.on('close', () => closed.add(i));
      }));
      if (i === 0) await new Promise((r) => setTimeout(r, 300));
    }
    const health = await rawRequest(capped.url);
    assert.equal(health.status, 200, JSON.stringify(health));
    assert.ok(health.body.connections <= 16, JSON.stringify(health.body));
    await waitFor(() => closed.size >= 84, { what: 'the oldest idle connections to be closed' });
    assert.ok(closed.has(0), 'the oldest went first');
    // The header timeout closes the rest.
    await waitFor(() => closed.size === 100, { what: 'the header timeout to close idle connections' });
    // A header that starts and never ends gets 408.
    const partial = await new Promise((resolve) => {
      const k = net.connect(portOf(capped.url), '127.0.0.1', () => k.write('GET /api/health HTTP/1.1\r\nHost: 127'));
      let text = '';
      k.on('data', (d) => { text += d; });
      k.on('close', () => resolve(text));
      k.on('error', () => {});
    });
    assert.match(partial, /^HTTP\/1\.1 408 /);
  } finally {
    await capped.stop();
    tmp.cleanup();
  }
});

test('only the configured host names are served; cross-site writes are refused', async () => {
  const { tmp, ws } = setup('pulse-harden-host-');
  const s = await startServer(ws, ['--no-tick', '--allowed-host', 'pulse.example']);
  const port = portOf(s.url);
  try {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, `pulse.example:${port}`]) {
      assert.equal((await rawRequest(s.url, { headers: { Host: host } })).status, 200, host);
    }
    for (const host of [`evil.example:${port}`, `127.0.0.1:${port + 1}`, 'localhost', `127.0.0.1.evil.example:${port}`]) {
      const r = await rawRequest(s.url, { path: '/api/workflows', headers: { Host: host } });
      assert.equal(r.status, 421, host);
      assert.match(r.body.error, /is not served here/);
      // The refusal names the host it refused (the message once lost it).
      assert.ok(r.body.error.startsWith(`host "${host}" is not served here`), r.body.error);
      assert.doesNotMatch(r.text, /substack/);
    }
    const answer = { method: 'POST', path: '/api/workflows/substack/decisions/1/answer', body: '{"accept": true}' };
    const auth = { Authorization: `Bearer ${s.ownerToken}`, 'Content-Type': 'application/json' };
    for (const origin of ['http://evil.example', 'null', `http://localhost:${port + 1}`, `https://127.0.0.1:${port}`]) {
      const r = await rawRequest(s.url, { ...answer, headers: { ...auth, Origin: origin } });
      assert.equal(r.status, 403, origin);
      assert.match(r.body.error, /cross-site request refused/);
    }
    const fetchSite = await rawRequest(s.url, { ...answer, headers: { ...auth, 'Sec-Fetch-Site': 'cross-site' } });
    assert.equal(fetchSite.status, 403);
    // The server's own page, and clients that send no Origin, get through to the owner check.
    const own = await rawRequest(s.url, { ...answer, headers: { ...auth, Origin: `http://127.0.0.1:${port}` } });
    assert.notEqual(own.status, 403, own.text);
    assert.notEqual(own.status, 421);
    const noOrigin = await rawRequest(s.url, { ...answer, headers: { 'Content-Type': 'application/json' } });
    assert.equal(noOrigin.status, 401);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('/wasm/ serves the module\'s files only, never the build directory\'s', async () => {
  const { tmp, ws } = setup('pulse-harden-wasm-');
  const wasm = join(tmp.dir, 'wasm');
  mkdirSync(join(wasm, 'CMakeFiles'), { recursive: true });
  const modules = ['pulse.mjs', 'sqljs-api.mjs', 'sqljs-statement.mjs', 'sqljs-functions.mjs', 'sqljs-worker.mjs',
    'opfs-pool.mjs', 'opfs-copies.mjs', 'result-codes.mjs', 'sqlite-header.mjs', 'sqljs-guard.mjs', 'file-handle.mjs'];
  for (const f of modules) writeFileSync(join(wasm, f), 'export {};\n');
  writeFileSync(join(wasm, 'pulse.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  for (const f of ['CMakeCache.txt', 'build.ninja', 'compile_commands.json', 'cmake_install.cmake', 'libsqlite3.a', 'CMakeFiles/x.log']) {
    writeFileSync(join(wasm, f), `/home/someone/secret-path ${f}`);
  }
  const s = await startServer(ws, ['--no-tick', '--wasm-root', wasm]);
  try {
    for (const f of [...modules, 'pulse.wasm']) {
      assert.equal((await request(`${s.url}wasm/${f}`)).status, 200, f);
    }
    // The tab's files come cross-origin isolated (Inspect's Cancel needs a SharedArrayBuffer).
    for (const path of ['', 'wasm/sqljs-guard.mjs']) {
      const res = await fetch(`${s.url}${path}`);
      assert.equal(res.headers.get('cross-origin-opener-policy'), 'same-origin', path);
      assert.equal(res.headers.get('cross-origin-embedder-policy'), 'require-corp', path);
    }
    for (const f of ['CMakeCache.txt', 'build.ninja', 'compile_commands.json', 'cmake_install.cmake', 'libsqlite3.a', 'CMakeFiles/x.log', '']) {
      const r = await request(`${s.url}wasm/${f}`);
      assert.equal(r.status, 404, f);
      assert.doesNotMatch(r.text, /secret-path/);
    }
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('a second server on the same port refuses to start', async () => {
  const { tmp, ws } = setup('pulse-harden-port-');
  const s = await startServer(ws, ['--no-tick']);
  try {
    const second = pulse(['serve', '--workspace', ws, '--no-tick', '--port', String(portOf(s.url))], { timeout: 10000 });
    assert.equal(second.status, 2, second.stderr);
    assert.match(second.stderr, /port in use/);
    assert.equal((await request(`${s.url}api/health`)).status, 200);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('invalid UTF-8 in a URL or a body gets 400 with a JSON reason', async () => {
  const { tmp, ws } = setup('pulse-harden-utf8-');
  const s = await startServer(ws, ['--no-tick']);
  try {
    for (const path of ['api/workflows/%FF%FE/goal-status', 'api/workflows/substack/goal-status?now=%C0%AF',
      'api/workflows/substack/agent-log?session=%ED%A0%80', 'no/%FFroute', 'wasm/%FF.mjs']) {
      const r = await request(`${s.url}${path}`);
      assert.equal(r.status, 400, `${path}: ${r.text}`);
      assert.match(r.body.error, /not valid UTF-8/);
    }
    const bad = Buffer.concat([Buffer.from('{"text": "'), Buffer.from([0xff, 0xfe, 0x80]), Buffer.from('"}')]);
    for (const path of ['api/workflows/substack/messages', 'api/workflows/substack/call/goal.check']) {
      const r = await request(`${s.url}${path}`, { method: 'POST', token: s.ownerToken, raw: bad, headers: { 'content-type': 'application/json' } });
      assert.equal(r.status, 400, `${path}: ${r.text}`);
      assert.match(r.body.error, /UTF-8/);
    }
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

// Issue #32: a header line over 8 KB got its 400 only after the 10 s header
// timeout. Now a line longer than the parser takes is refused as soon as it
// is seen, whether the header has ended or not, well before --header-timeout.
test('an over-long header line or request line is refused at once, ended or not', { timeout: 60000 }, async () => {
  const { tmp, ws } = setup('pulse-longline-');
  const s = await startServer(ws, ['--no-tick', '--header-timeout', '10']);
  // Writes `text` on a fresh socket and resolves with the answer and how long it took.
  const send = (text) => new Promise((resolve, reject) => {
    const started = Date.now();
    const sock = net.connect(portOf(s.url), '127.0.0.1', () => sock.write(text));
    let answer = '';
    sock.on('data', (d) => { answer += d; });
    sock.on('close', () => resolve({ answer, ms: Date.now() - started }));
    sock.on('error', reject);
    setTimeout(() => { sock.destroy(); resolve({ answer, ms: Date.now() - started }); }, 15000).unref();
  });
  try {
    const host = `Host: 127.0.0.1:${portOf(s.url)}\r\n`;
    const long = 'a'.repeat(9000);
    const cases = [
      [`GET /api/health HTTP/1.1\r\n${host}X-Long: ${long}\r\n\r\n`, /^HTTP\/1\.1 431 /, 'a whole request with a 9,000-byte field'],
      [`GET /api/health HTTP/1.1\r\n${host}X-Long: ${long}`, /^HTTP\/1\.1 431 /, 'a 9,000-byte field whose header never ends'],
      [`GET /api/health?x=${long} HTTP/1.1\r\n${host}\r\n`, /^HTTP\/1\.1 414 /, 'a 9,000-byte request line'],
      [`GET /api/health?x=${long}`, /^HTTP\/1\.1 414 /, 'a request line that never ends'],
    ];
    for (const [text, status, what] of cases) {
      const r = await send(text);
      assert.match(r.answer, status, `${what}: ${r.answer.slice(0, 120)}`);
      assert.match(r.answer, /longer than 8192 bytes/, what);
      assert.ok(r.ms < 3000, `${what}: answered after ${r.ms} ms (the header timeout is 10 s)`);
    }
    // A field just under the bound is served.
    const ok = await send(`GET /api/health HTTP/1.1\r\n${host}X-Fine: ${'a'.repeat(8000)}\r\nConnection: close\r\n\r\n`);
    assert.match(ok.answer, /^HTTP\/1\.1 200 /);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
