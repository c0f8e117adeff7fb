// Bench: what a Prometheus scrape of GET /metrics costs with many workflows.
// A workspace of N realistic workflows (tests/server/many_workflows.mjs: a
// goal, runs, readings, decisions), the real `pulse serve` on it (tick off,
// the clock fixed by --now-file), then: the time until the per-workflow
// gauges' first refresh is in (every workflow's item computed once, below
// the HTTP side), and the scrape itself — its latency (p50, max over
// --scrapes requests in a row) and size — against GET /api/health on the
// same server as the yardstick. A scrape copies numbers out of memory: it
// should cost about what health costs plus the bytes.
//
//   node bench/metrics.mjs [--workflows 1000] [--scrapes 50]   (after scripts/build.sh)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeManyWorkflows, MANY_MADE_AT } from '../tests/server/many_workflows.mjs';
import { PULSE_BIN } from '../tests/node/helpers.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('--workflows', 1000);
const SCRAPES = arg('--scrapes', 50);

const dir = mkdtempSync(join(tmpdir(), 'pulse-bench-metrics-'));
try {
  const ws = join(dir, 'ws');
  mkdirSync(join(ws, '.pulse'), { recursive: true });
  let t = Date.now();
  makeManyWorkflows(ws, N, { runs: 200 });
  console.log(`made ${N} workflows in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  const nowFile = join(ws, '.pulse', 'now');
  writeFileSync(nowFile, `${MANY_MADE_AT.replace('08:00', '12:00')}\n`);
  const proc = spawn(PULSE_BIN, ['serve', '--workspace', ws, '--port', '0', '--no-tick', '--now-file', nowFile],
    { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  const url = await new Promise((resolve) => proc.stdout.on('data', (d) => {
    out += d;
    const m = out.match(/pulse: serving (\S+)\n/);
    if (m && /pulse: open /.test(out)) resolve(m[1]);
  }));
  try {
    t = Date.now();
    let text = '';
    for (;;) {
      text = await (await fetch(`${url}metrics`)).text();
      const m = text.match(/^pulse_metrics_refreshes (\d+)/m);
      if (m && Number(m[1]) >= 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const firstRefresh = (Date.now() - t) / 1000;
    const series = (text.match(/^pulse_goal_status\{/gm) || []).length;
    const time = async (path) => {
      const ms = [];
      for (let i = 0; i < SCRAPES; i++) {
        const t0 = process.hrtime.bigint();
        const r = await fetch(`${url}${path}`);
        await r.arrayBuffer();
        ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      ms.sort((a, b) => a - b);
      return { p50: ms[Math.floor(ms.length / 2)], max: ms[ms.length - 1] };
    };
    const health = await time('api/health');
    const metrics = await time('metrics');
    console.log(`| workflows | first refresh of the gauges | /metrics bytes | pulse_goal_status series | /metrics p50 | /metrics max | /api/health p50 | ratio p50 metrics/health |`);
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
    console.log(`| ${N} | ${firstRefresh.toFixed(1)} s | ${text.length.toLocaleString('en-US')} | ${series} | ${metrics.p50.toFixed(1)} ms | ${metrics.max.toFixed(1)} ms | ${health.p50.toFixed(1)} ms | ${(metrics.p50 / health.p50).toFixed(1)} |`);
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.on('exit', r));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
