// What --etcd costs the tick: tick passes over N workflows in a fixed time
// for one `pulse serve` alone and one `pulse serve --etcd` (its claims,
// fence and tick row), alternating, on a real etcd on loopback. Prints the
// passes per run, the medians and their ratio.
//   node bench/etcd_tick.mjs [--workflows 300] [--seconds 15] [--rounds 3]
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, makeTempDir, pulse, startServer, waitFor } from '../tests/server/helpers.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('workflows', 300);
const SECONDS = arg('seconds', 15);
const ROUNDS = arg('rounds', 3);
const ETCD = '/usr/bin/etcd';
if (!existsSync(ETCD)) throw new Error(`${ETCD}: missing (scripts/setup.sh installs etcd-server)`);

const tmp = makeTempDir('pulse-bench-etcd-');
const ws = join(tmp.dir, 'ws');
for (let i = 0; i < N; i++) {
  const wf = join(ws, 'Workflow', `wf${String(i).padStart(5, '0')}`);
  mkdirSync(wf, { recursive: true });
  writeFileSync(join(wf, 'workflow.json'), '{}');
}
// The databases made once, before any server starts (start-up is not measured).
pulse(['status', '--workspace', ws, '--json'], { maxBuffer: 64 << 20, timeout: 300000 });
const [client, peer] = [await freePort(), await freePort()];
const url = `http://127.0.0.1:${client}`;
const etcd = spawn(ETCD, ['--name', 'b', '--data-dir', join(tmp.dir, 'etcd'), '--listen-client-urls', url,
  '--advertise-client-urls', url, '--listen-peer-urls', `http://127.0.0.1:${peer}`,
  '--initial-advertise-peer-urls', `http://127.0.0.1:${peer}`, '--initial-cluster', `b=http://127.0.0.1:${peer}`,
  '--logger', 'zap', '--log-level', 'error'], { stdio: 'ignore' });
await waitFor(async () => { try { return (await fetch(`${url}/health`)).ok; } catch { return false; } },
  { what: 'etcd', timeoutMs: 20000 });

async function passes(extra) {
  const s = await startServer(ws, ['--tick-seconds', '0.05', ...extra]);
  const health = async () => (await (await fetch(`${s.url}api/health`)).json()).ticks;
  await waitFor(async () => (await health()) >= 1, { what: 'a first pass', timeoutMs: 120000 });
  const start = await health();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const n = (await health()) - start;
  await s.stop();
  return n;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const alone = [];
const claimed = [];
try {
  for (let r = 0; r < ROUNDS; r++) {
    alone.push(await passes([]));
    claimed.push(await passes(['--etcd', url, '--etcd-ttl', '10', '--instance', 'bench']));
    console.log(`round ${r + 1}: alone ${alone[r]} passes, --etcd ${claimed[r]} passes in ${SECONDS} s`);
  }
  const a = median(alone);
  const c = median(claimed);
  console.log(`${N} workflows, ${SECONDS} s: median ${a} passes alone (${(SECONDS * 1000 / a).toFixed(0)} ms a pass), ` +
    `${c} with --etcd (${(SECONDS * 1000 / c).toFixed(0)} ms a pass); --etcd/alone ${(c / a).toFixed(2)}`);
} finally {
  etcd.kill();
  tmp.cleanup();
}
