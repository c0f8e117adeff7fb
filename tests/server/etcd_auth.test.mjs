// `pulse serve --etcd` against a real etcd with its auth turned on, and over
// TLS with client certificates (issue #32: any local process could take
// etcd's claims). An instance without credentials, or with the wrong ones,
// is refused and ticks nothing, saying why in one line; one with the user and
// password from the environment or a file ticks. Over https:// a client
// without a certificate the CA signed is refused; one with it ticks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, makeTempDir, pulse, startServer, waitFor } from './helpers.mjs';
import { missingOf, skipUnless } from '../strict.mjs';
import { ETCD, etcdPost, startEtcd } from './etcd_util.mjs';

const skip = skipUnless(import.meta.url, missingOf([[ETCD, 'the etcd binary is missing (scripts/setup.sh installs Debian\'s etcd-server)']]));

const b64 = (t) => Buffer.from(t).toString('base64');

function workspace(dir) {
  const ws = join(dir, 'ws');
  for (const name of ['wf1', 'wf2']) {
    mkdirSync(join(ws, 'Workflow', name), { recursive: true });
    writeFileSync(join(ws, 'Workflow', name, 'workflow.json'), '{}');
  }
  return ws;
}

const tickRows = (ws) => {
  const r = pulse(['ticks', '--workspace', ws, '--json']);
  assert.equal(r.status, 0, r.stderr);
  return r.json.workflows.reduce((n, w) => n + w.ticks.length, 0);
};

// root (etcd's rule for turning auth on) and "pulse", whose role may read
// and write every key; then auth on.
async function enableAuth(url, tls) {
  const call = async (path, body) => {
    const doc = await etcdPost(url, path, body, { tls });
    assert.ok(!doc.error && !doc.code, `${path}: ${JSON.stringify(doc)}`);
  };
  await call('/v3/auth/role/add', { name: 'root' });
  await call('/v3/auth/user/add', { name: 'root', password: 'root-secret' });
  await call('/v3/auth/user/grant', { user: 'root', role: 'root' });
  await call('/v3/auth/role/add', { name: 'pulse' });
  await call('/v3/auth/role/grant', { name: 'pulse', perm: { permType: 'READWRITE', key: b64('/'), range_end: b64('\0') } });
  await call('/v3/auth/user/add', { name: 'pulse', password: 'pulse-secret' });
  await call('/v3/auth/user/grant', { user: 'pulse', role: 'pulse' });
  await call('/v3/auth/enable', {});
}

async function ticksWithin(s, ws, what) {
  await waitFor(() => tickRows(ws) >= 2, { what, timeoutMs: 30000, intervalMs: 300 })
    .catch((e) => { throw new Error(`${e.message}; the server said:\n${(s.stdout + s.stderr).slice(-1500)}`); });
}

async function refused(s, ws, pattern, what) {
  await waitFor(() => pattern.test(s.stdout + s.stderr), { what, timeoutMs: 20000 })
    .catch((e) => { throw new Error(`${e.message}; the server said:\n${(s.stdout + s.stderr).slice(-1500)}`); });
  const lines = (s.stdout + s.stderr).split('\n').filter((l) => pattern.test(l));
  assert.equal(lines.length, 1, `${what}: said once, not on every tick:\n${lines.join('\n')}`);
  await waitFor(async () => (await (await fetch(`${s.url}api/health`)).json()).ticks >= 5, { what: 'five ticks' });
  assert.equal(tickRows(ws), 0, `${what}: nothing is ticked without etcd's leave`);
}

test('etcd with auth on: an instance without credentials or with a wrong password is refused, one with them ticks',
  { skip, timeout: 120000 }, async () => {
    const tmp = makeTempDir('pulse-etcd-auth-');
    const etcd = await startEtcd(tmp.dir, { client: await freePort(), peer: await freePort() });
    const servers = [];
    try {
      await enableAuth(etcd.url);
      const args = ['--etcd', etcd.url, '--etcd-ttl', '2', '--tick-seconds', '0.2'];

      let ws = workspace(join(tmp.dir, 'none'));
      let s = await startServer(ws, args);
      servers.push(s);
      await refused(s, ws, /user name is empty.*etcd has auth on: give --etcd-auth-file, or PULSE_ETCD_USER and PULSE_ETCD_PASSWORD/,
        'an instance without credentials');

      ws = workspace(join(tmp.dir, 'wrong'));
      s = await startServer(ws, args, { env: { PULSE_ETCD_USER: 'pulse', PULSE_ETCD_PASSWORD: 'guessed' } });
      servers.push(s);
      await refused(s, ws, /\/v3\/auth\/authenticate: .*authentication failed.*\(as etcd user "pulse"\)/, 'a wrong password');
      assert.doesNotMatch(s.stdout + s.stderr, /guessed/, 'the password is never logged');

      ws = workspace(join(tmp.dir, 'env'));
      s = await startServer(ws, args, { env: { PULSE_ETCD_USER: 'pulse', PULSE_ETCD_PASSWORD: 'pulse-secret' } });
      servers.push(s);
      await ticksWithin(s, ws, 'an instance with the user and password from the environment to tick');
      assert.match(s.stdout + s.stderr, /as etcd user pulse/);
      assert.doesNotMatch(s.stdout + s.stderr, /pulse-secret/);

      ws = workspace(join(tmp.dir, 'file'));
      const file = join(tmp.dir, 'etcd-auth');
      writeFileSync(file, 'pulse:pulse-secret\n');
      chmodSync(file, 0o600);
      s = await startServer(ws, [...args, '--etcd-auth-file', file]);
      servers.push(s);
      await ticksWithin(s, ws, 'an instance with the user and password from a file to tick');

      // Bad usage is one line and exit 2, before anything is served.
      const half = pulse(['serve', '--workspace', ws, '--port', '0', '--etcd', etcd.url],
        { env: { ...process.env, PULSE_ETCD_USER: 'pulse' } });
      assert.equal(half.status, 2);
      assert.match(half.stderr, /PULSE_ETCD_USER and PULSE_ETCD_PASSWORD: set both/);
      const badFile = pulse(['serve', '--workspace', ws, '--port', '0', '--etcd', etcd.url, '--etcd-auth-file', join(tmp.dir, 'nope')]);
      assert.equal(badFile.status, 2);
      assert.match(badFile.stderr, /--etcd-auth-file .*nope: cannot read it/);
    } finally {
      await Promise.all(servers.map((x) => x.stop().catch(() => {})));
      await etcd.stop().catch(() => {});
      tmp.cleanup();
    }
  });

// A throwaway CA, a server certificate for 127.0.0.1 and a client
// certificate, made with openssl in the test's temp dir.
function makeCerts(dir) {
  const run = (args) => {
    const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, `openssl ${args.join(' ')}: ${r.stderr}`);
  };
  // etcd's own JSON gateway connects to its gRPC side with the server's
  // certificate as a client one, so it serves both ways.
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n');
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=pulse-test-ca']);
  for (const who of ['server', 'client']) {
    run(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${who}.key`, '-out', `${who}.csr`, '-subj', `/CN=${who === 'server' ? '127.0.0.1' : 'pulse'}`]);
    run(['x509', '-req', '-in', `${who}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${who}.pem`,
      '-days', '2', '-extfile', `${who}.ext`]);
  }
  const at = (f) => join(dir, f);
  return { ca: at('ca.pem'), cert: at('server.pem'), key: at('server.key'), clientCert: at('client.pem'), clientKey: at('client.key') };
}

test('etcd over TLS with client certificates: the CA and a client certificate are needed, and then it ticks',
  { skip, timeout: 120000 }, async () => {
    const tmp = makeTempDir('pulse-etcd-tls-');
    const tls = makeCerts(tmp.dir);
    const etcd = await startEtcd(tmp.dir, { client: await freePort(), peer: await freePort() }, { tls });
    const servers = [];
    try {
      assert.match(etcd.url, /^https:/);
      const base = ['--etcd', etcd.url, '--etcd-ttl', '2', '--tick-seconds', '0.2'];

      let ws = workspace(join(tmp.dir, 'nocert'));
      let s = await startServer(ws, [...base, '--etcd-ca', tls.ca]);
      servers.push(s);
      await refused(s, ws, /cannot reach it \(.*TLS handshake failed or etcd closed the connection/, 'an instance without a client certificate');

      ws = workspace(join(tmp.dir, 'noca'));
      s = await startServer(ws, [...base, '--etcd-cert', tls.clientCert, '--etcd-key', tls.clientKey]);
      servers.push(s);
      await refused(s, ws, /cannot reach it \(.*etcd's certificate is not trusted \(--etcd-ca\)/, 'an instance that does not trust etcd\'s CA');

      ws = workspace(join(tmp.dir, 'ok'));
      s = await startServer(ws, [...base, '--etcd-ca', tls.ca, '--etcd-cert', tls.clientCert, '--etcd-key', tls.clientKey]);
      servers.push(s);
      await ticksWithin(s, ws, 'an instance with the CA and its client certificate to tick');

      const plain = pulse(['serve', '--workspace', ws, '--port', '0', '--etcd', etcd.url.replace('https', 'http'), '--etcd-ca', tls.ca]);
      assert.equal(plain.status, 2);
      assert.match(plain.stderr, /--etcd-ca, --etcd-cert and --etcd-key are for TLS: give --etcd an https:\/\/ URL/);
    } finally {
      await Promise.all(servers.map((x) => x.stop().catch(() => {})));
      await etcd.stop().catch(() => {});
      tmp.cleanup();
    }
  });
