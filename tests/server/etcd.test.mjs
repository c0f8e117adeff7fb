// Several `pulse serve --etcd URL` instances on one workspace, against a real
// etcd on loopback: every tick of a workflow leaves a row (instance, the
// instance's tick number, the claim revision) in that workflow's db, and
// `pulse ticks` reads them back. Over many ticks, a SIGKILLed instance and
// an etcd restart, each workflow's rows
// show one holder at a time (claim revisions never go back, each revision is
// one instance's) and every workflow keeps being ticked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, makeTempDir, pulse, startServer, waitFor } from './helpers.mjs';
import { missingOf, skipUnless } from '../strict.mjs';
import { ETCD, startEtcd } from './etcd_util.mjs';

const skip = skipUnless(import.meta.url, missingOf([[ETCD, 'the etcd binary is missing (scripts/setup.sh installs Debian\'s etcd-server)']]));
const WORKFLOWS = 300;
const TTL = 2;

// The keys under `prefix`, decoded, through etcd's JSON gateway.
async function etcdRange(url, prefix) {
  const b64 = (t) => Buffer.from(t).toString('base64');
  const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  const r = await fetch(`${url}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: b64(prefix), range_end: b64(end) }) });
  const doc = await r.json();
  return (doc.kvs || []).map((kv) => ({ key: Buffer.from(kv.key, 'base64').toString(), value: Buffer.from(kv.value, 'base64').toString() }));
}

function makeWorkspace(dir, n) {
  const ws = join(dir, 'ws');
  for (let i = 0; i < n; i++) {
    const wf = join(ws, 'Workflow', `wf${String(i).padStart(3, '0')}`);
    mkdirSync(wf, { recursive: true });
    writeFileSync(join(wf, 'workflow.json'), '{}');
  }
  return ws;
}

function readTicks(ws) {
  const r = pulse(['ticks', '--workspace', ws, '--json'], { maxBuffer: 256 << 20 });
  assert.equal(r.status, 0, r.stderr);
  return r.json.workflows;
}

// One holder at a time, per workflow, in the order SQLite committed the rows:
// the claim revision never goes back, a revision belongs to one instance, and
// one instance ticks a workflow once per tick of its own.
function assertOneHolderAtATime(workflows) {
  for (const { workflow, ticks } of workflows) {
    const owner = new Map();
    const seen = new Set();
    let last = 0;
    for (const t of ticks) {
      assert.ok(t.revision >= last, `${workflow}: revision ${t.revision} by ${t.instance} after ${last}`);
      last = t.revision;
      if (!owner.has(t.revision)) owner.set(t.revision, t.instance);
      assert.equal(owner.get(t.revision), t.instance, `${workflow}: revision ${t.revision} ticked by two instances`);
      const key = `${t.instance}#${t.tick}`;
      assert.ok(!seen.has(key), `${workflow}: ${t.instance} ticked it twice in its tick ${t.tick}`);
      seen.add(key);
    }
  }
}

const counts = (workflows) => new Map(workflows.map((w) => [w.workflow, w.ticks.length]));
const lastHolder = (w) => (w.ticks.length ? w.ticks[w.ticks.length - 1].instance : null);

// Every workflow ticked at least `n` more times since `before`, by live instances only.
async function everyWorkflowTicked(ws, before, n, live, what) {
  return waitFor(() => {
    const all = readTicks(ws);
    const ok = all.every((w) => {
      const fresh = w.ticks.slice(before.get(w.workflow) || 0);
      return fresh.length >= n && fresh.every((t) => live.includes(t.instance));
    });
    return ok ? all : null;
  }, { what, timeoutMs: 150000, intervalMs: 1500 });
}

test('three instances on one etcd tick each of 300 workflows once at a time, through a kill and an etcd restart',
  { skip, timeout: 600000 }, async () => {
    const tmp = makeTempDir('pulse-etcd-');
    const ws = makeWorkspace(tmp.dir, WORKFLOWS);
    const ports = { client: await freePort(), peer: await freePort() };
    let etcd = await startEtcd(tmp.dir, ports);
    const servers = [];
    try {
      const names = ['i1', 'i2', 'i3'];
      const args = (name) => ['--etcd', etcd.url, '--etcd-ttl', String(TTL), '--instance', name,
        '--tick-seconds', '0.3'];
      servers.push(...await Promise.all(names.map((n) => startServer(ws, args(n)))));

      // Steady state: the share settles at a third each and all keep ticking.
      let all = await waitFor(() => {
        const now = readTicks(ws);
        const by = new Map(names.map((n) => [n, 0]));
        for (const w of now) if (lastHolder(w)) by.set(lastHolder(w), by.get(lastHolder(w)) + 1);
        return now.every((w) => w.ticks.length >= 2) && [...by.values()].every((c) => c === WORKFLOWS / 3) ? now : null;
      }, { what: 'the three instances to share the 300 workflows', timeoutMs: 150000, intervalMs: 1500 });
      assertOneHolderAtATime(all);

      // SIGKILL i1: its lease is no longer kept alive, its keys go after the
      // TTL and i2 and i3 take its workflows over.
      const killedAt = Date.now();
      await servers[0].stop('SIGKILL');
      // The claims themselves, as etcd holds them: i1's go with its lease.
      const prefix = `/pulse/${readFileSync(join(ws, '.pulse', 'workspace-id'), 'utf8').trim()}/claims/`;
      await waitFor(async () => {
        const kvs = await etcdRange(etcd.url, prefix);
        return kvs.length === WORKFLOWS && kvs.every((kv) => kv.value !== 'i1');
      }, { what: 'i2 and i3 to claim i1\'s workflows in etcd', timeoutMs: 150000, intervalMs: 200 });
      console.log(`# i1's claims held by i2/i3 in etcd ${Date.now() - killedAt} ms after the SIGKILL (lease TTL ${TTL} s)`);
      all = await everyWorkflowTicked(ws, counts(readTicks(ws)), 1, ['i2', 'i3'], 'i1\'s workflows to move to i2 and i3');
      console.log(`# every workflow ticked again by i2/i3 only, ${Date.now() - killedAt} ms after the SIGKILL`);
      assertOneHolderAtATime(all);

      // etcd restarts on its data: the instances say so in one line, tick
      // nothing while it is away, and go on when it answers again.
      await etcd.stop();
      await waitFor(() => servers.slice(1).every((s) => /etcd at http:\/\/127\.0\.0\.1:\d+: .*cannot reach it.*ticks no workflow until etcd answers/.test(s.stdout + s.stderr)),
        { what: 'the instances to report etcd away', timeoutMs: 60000 });
      const duringOutage = counts(readTicks(ws));
      etcd = await startEtcd(tmp.dir, ports);
      all = await everyWorkflowTicked(ws, duringOutage, 1, ['i2', 'i3'], 'every workflow ticked after the etcd restart');
      assertOneHolderAtATime(all);
      for (const s of servers.slice(1)) assert.match(s.stdout + s.stderr, /etcd at http:\S+ answers again/);

      // The history is whole: nothing was cut off the kept tick rows.
      const rows = all.reduce((n, w) => n + w.ticks.length, 0);
      assert.ok(all.every((w) => w.ticks.length < 2000), 'tick rows stay under the kept 2,000 per workflow');
      console.log(`# ${rows} tick rows over ${WORKFLOWS} workflows checked`);
    } finally {
      await Promise.all(servers.map((s) => s.stop('SIGTERM').catch(() => {})));
      await etcd.stop().catch(() => {});
      try { tmp.cleanup(); } catch (e) { console.log(`# cleanup: ${e.message}`); }
    }
  });

test('a bad --etcd URL is one line and exit 2; an etcd that does not answer is one line and nothing is ticked', async () => {
  const tmp = makeTempDir('pulse-etcd-bad-');
  const ws = makeWorkspace(tmp.dir, 3);
  try {
    const bad = pulse(['serve', '--workspace', ws, '--port', '0', '--etcd', 'etcd.example:2379']);
    assert.equal(bad.status, 2);
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
    assert.match(bad.stderr, /^pulse: --etcd "etcd\.example:2379": expected http:\/\/HOST:PORT/);

    const port = await freePort();  // nothing listens there
    const s = await startServer(ws, ['--etcd', `http://127.0.0.1:${port}`, '--tick-seconds', '0.1']);
    try {
      await waitFor(() => /cannot reach it/.test(s.stdout + s.stderr), { what: 'the etcd error line' });
      const lines = (s.stdout + s.stderr).split('\n').filter((l) => /cannot reach it/.test(l));
      assert.equal(lines.length, 1, 'reported once, not on every tick');
      assert.match(lines[0], new RegExp(`etcd at http://127\\.0\\.0\\.1:${port}: /v3/lease/grant: cannot reach it .*; this instance ticks no workflow until etcd answers`));
      const health = await waitFor(async () => {
        const h = await (await fetch(`${s.url}api/health`)).json();
        return h.ticks >= 5 ? h : null;
      }, { what: 'five ticks' });
      assert.ok(health.ticks >= 5);
      for (const w of readTicks(ws)) assert.equal(w.ticks.length, 0, `${w.workflow} was ticked without a claim`);
    } finally {
      await s.stop();
    }
  } finally {
    tmp.cleanup();
  }
});
