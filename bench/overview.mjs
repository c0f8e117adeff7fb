// bench/overview.mjs — the Pulse tab's first screen, the overview, served by
// the real `pulse serve` over a workspace of many workflows, in headless
// Chromium: first contentful paint and the time until the overview's rows
// are drawn, from navigation start, and the API requests made until then.
//
//   node bench/overview.mjs [--counts 1000,5000] [--runs 5] [--before-runs 3] [--before-max 1000]
//
// Each run is a new browser context (nothing cached) loading `#/`. The
// server runs on the real clock, so every load after the first second asks
// for goal statuses that must be computed again (the status cache keys on
// the clock's second): the honest worst case. Medians of --runs.
//
// "before" is the tab as it was before the overview was paged: the web/ of
// the commit before it (git show, into a temp dir), which asks for every
// workflow at once (GET /api/workflows, each item's goal status) and then
// two methods per workflow, served by the same binary (whose unpaged answer
// is that list's). It runs on counts up to --before-max (5,000 would take
// minutes a load). Target: first paint and list under 1.5 s with 1,000.
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { ROOT, CHROMIUM, serveTab, stopTab } from '../tests/browser/helpers.mjs';
import { makeTempDir } from '../tests/node/helpers.mjs';
import { makeManyWorkflows } from '../tests/server/many_workflows.mjs';
import { OVERVIEW_PAGE } from '../web/data/overview.mjs';
import { vendorWeb } from '../scripts/vendor-web.mjs';
import { median } from './common.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const COUNTS = String(arg('counts', '1000,5000')).split(',').map(Number);
const RUNS = Number(arg('runs', 5));
const BEFORE_RUNS = Number(arg('before-runs', 3));
const BEFORE_MAX = Number(arg('before-max', 1000));
// The last commit whose tab asked for every workflow at once.
const BEFORE_COMMIT = arg('before-commit', '0b055fd');

// Records, in the page, when the overview first shows `want` rows.
function listWatch(want) {
  const seen = () => document.querySelectorAll('#overview .overview-row').length >= window.__pulseWant;
  window.__pulseWant = want;
  new MutationObserver((_, obs) => {
    if (window.__pulseListAt === undefined && seen()) { window.__pulseListAt = performance.now(); obs.disconnect(); }
  }).observe(document, { childList: true, subtree: true });
}

async function oneLoad(browser, url, want) {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await ctx.addInitScript(listWatch, want);
  const page = await ctx.newPage();
  let requests = 0;
  let listed = false;
  page.on('request', (r) => { if (!listed && new URL(r.url()).pathname.startsWith('/api/')) requests++; });
  await page.goto(`${url}/?nosw#/`);
  await page.waitForFunction(() => window.__pulseListAt !== undefined, null, { timeout: 600000, polling: 50 });
  listed = true;
  const t = await page.evaluate(() => ({
    fcp: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime,
    list: window.__pulseListAt,
  }));
  await ctx.close();
  return { ...t, requests };
}

async function measure(browser, ws, webRoot, runs, want) {
  const { server, url } = await serveTab(ws, [], { startTimeoutMs: 600000, webRoot });
  try {
    const out = [];
    for (let i = 0; i < runs; i++) {
      const r = await oneLoad(browser, url, want);
      console.log(`    run ${i + 1}: first paint ${r.fcp.toFixed(0)} ms, list drawn ${r.list.toFixed(0)} ms, ${r.requests} API requests`);
      out.push(r);
    }
    return {
      fcp: median(out.map((r) => r.fcp)), list: median(out.map((r) => r.list)), requests: median(out.map((r) => r.requests)),
      range: [Math.min(...out.map((r) => r.list)), Math.max(...out.map((r) => r.list))],
    };
  } finally {
    await stopTab(server);
  }
}

function beforeWeb(dir) {
  const tar = execFileSync('git', ['-C', ROOT, 'archive', BEFORE_COMMIT, 'web'], { maxBuffer: 1 << 28 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  cpSync(join(ROOT, 'web', 'vendor'), join(dir, 'web', 'vendor'), { recursive: true });
  return join(dir, 'web');
}

async function main() {
  vendorWeb();
  const tmp = makeTempDir('pulse-bench-overview-');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  const lines = [];
  try {
    const oldWeb = beforeWeb(tmp.dir);
    for (const count of COUNTS) {
      const ws = join(tmp.dir, `ws-${count}`);
      const t0 = Date.now();
      makeManyWorkflows(ws, count, { runs: 5 });
      console.log(`${count} workflows made in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      console.log('  paged overview (this tree):');
      const paged = await measure(browser, ws, join(ROOT, 'web'), RUNS, Math.min(OVERVIEW_PAGE, count));
      lines.push([count, 'paged', paged]);
      if (count <= BEFORE_MAX && BEFORE_RUNS > 0) {
        console.log(`  before (${BEFORE_COMMIT}'s web/: every workflow, then 2 requests each):`);
        const before = await measure(browser, ws, oldWeb, BEFORE_RUNS, count);
        lines.push([count, 'before', before]);
      }
    }
  } finally {
    await browser.close();
    tmp.cleanup();
  }
  console.log('\nworkflows | tab | first paint (median) | list drawn (median, range) | API requests until drawn');
  for (const [count, which, r] of lines) {
    console.log(`${count} | ${which} | ${r.fcp.toFixed(0)} ms | ${r.list.toFixed(0)} ms (${r.range.map((x) => x.toFixed(0)).join('–')}) | ${r.requests}`);
  }
  for (const count of COUNTS) {
    const p = lines.find((l) => l[0] === count && l[1] === 'paged');
    const b = lines.find((l) => l[0] === count && l[1] === 'before');
    if (p && b) console.log(`${count}: list drawn ${(b[2].list / p[2].list).toFixed(1)}x sooner paged`);
    if (p) console.log(`${count}: target first paint and list < 1500 ms: ${p[2].fcp < 1500 && p[2].list < 1500 ? 'met' : 'NOT met'}`);
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
