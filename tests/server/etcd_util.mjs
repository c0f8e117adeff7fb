// A real etcd on loopback for the server suites (Debian's etcd-server, which
// scripts/setup.sh installs), in the test's temp dir.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { waitFor } from './helpers.mjs';

export const ETCD = ['/usr/bin/etcd', '/usr/local/bin/etcd'].find((p) => existsSync(p));

// A one-member etcd cluster in `dir`; the same ports and data on a restart.
// `tls`: {cert, key, ca} PEM paths: clients connect over https:// and must
// show a certificate the CA signed.
export async function startEtcd(dir, ports, { tls } = {}) {
  const peer = `http://127.0.0.1:${ports.peer}`;
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${ports.client}`;
  const args = [
    '--name', 'pulse-test', '--data-dir', join(dir, `etcd-data-${ports.client}`),
    '--listen-client-urls', url, '--advertise-client-urls', url,
    '--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer,
    '--initial-cluster', `pulse-test=${peer}`, '--logger', 'zap', '--log-level', 'error',
  ];
  if (tls) args.push('--cert-file', tls.cert, '--key-file', tls.key, '--client-cert-auth', '--trusted-ca-file', tls.ca);
  const proc = spawn(ETCD, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((r) => proc.on('exit', r));
  await waitFor(async () => {
    if (proc.exitCode !== null) throw new Error(`etcd exited ${proc.exitCode}: ${stderr}`);
    try {
      const doc = await etcdPost(url, '/health', undefined, { tls, method: 'GET' });
      return doc.health === 'true';
    } catch { return false; }
  }, { what: 'etcd to answer', timeoutMs: 20000 });
  return { url, proc, exited, stop: async (sig = 'SIGTERM') => { proc.kill(sig); await exited; } };
}

// One call of etcd's JSON gateway; resolves with the parsed answer (any
// status), rejects when the connection fails. `token`: etcd's auth token.
export function etcdPost(url, path, body, { tls, token, method = 'POST' } = {}) {
  if (!tls) {
    return fetch(`${url}${path}`, { method, headers: token ? { authorization: token } : {},
      body: body === undefined ? undefined : JSON.stringify(body) }).then((r) => r.json());
  }
  return new Promise((resolve, reject) => {
    const req = https.request(`${url}${path}`, {
      method, ca: readFileSync(tls.ca), cert: readFileSync(tls.clientCert), key: readFileSync(tls.clientKey),
      headers: token ? { authorization: token } : {},
    }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => { try { resolve(JSON.parse(text)); } catch (e) { reject(e); } });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(JSON.stringify(body));
    req.end();
  });
}
