// bench/overview.mjs — the Pulse tab's first screen, the overview, served by
// the real `pulse serve` over a workspace of many workflows, in headless
// Chromium: first contentful paint and the time until the overview's rows
// are drawn, from navigation start, and the API requests made until then.
//
//   node bench/overview.mjs [--counts 1000,5000] [--runs 5] [--before-runs 3] [--before-max 1000]
//                           [--unbundled] [--json]
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
// minutes a load). Target: first paint and list under 1.0 s with 1,000.
//
// --unbundled adds the same tree's tab with its modules loaded one by one
// (index.html's script tag pointed back at app.mjs, as before the bundle,
// scripts/bundle-web.mjs), loads alternating with the bundled tab's on one
// server; each side also counts its script files and their bytes on the
// wire. --json ends with one JSON line of the medians (bench/anchors.mjs).
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
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
const UNBUNDLED = process.argv.includes('--unbundled');
const JSON_OUT = process.argv.includes('--json');
const BUNDLE_TAG = '<script type="module" src="./dist/app.mjs"></script>';

// Records, in the page, when the overview first shows `want` rows.
function listWatch(want) {
  const seen = () => document.querySelectorAll('#overview .overview-row').length >= window.__pulseWant;
  window.__pulseWant = want;
  new MutationObserver((_, obs) => {
    if (window.__pulseListAt === undefined && seen()) { window.__pulseListAt = performance.now(); obs.disconnect(); }
  }).observe(document, { childList: true, subtree: true });
}

async function oneLoad(browser, url, want, path = '/') {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await ctx.addInitScript(listWatch, want);
  const page = await ctx.newPage();
  let requests = 0;
  let listed = false;
  page.on('request', (r) => { if (!listed && new URL(r.url()).pathname.startsWith('/api/')) requests++; });
  await page.goto(`${url}${path}?nosw#/`);
  await page.waitForFunction(() => window.__pulseListAt !== undefined, null, { timeout: 600000, polling: 50 });
  listed = true;
  const t = await page.evaluate(() => {
    // The scripts fetched until the list was drawn, and their bytes on the wire.
    const scripts = performance.getEntriesByType('resource')
      .filter((e) => /\.m?js$/.test(new URL(e.name).pathname) && e.startTime <= window.__pulseListAt);
    return {
      fcp: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime,
      list: window.__pulseListAt,
      scripts: scripts.length,
      scriptBytes: scripts.reduce((n, e) => n + e.encodedBodySize, 0),
    };
  });
  await ctx.close();
  return { ...t, requests };
}

// web/ as served, plus unbundled.html: index.html loading app.mjs and its
// modules one by one (with data/early.mjs first, as the tab did before the bundle).
function webWithUnbundled(dir) {
  const web = join(dir, 'web-both');
  cpSync(join(ROOT, 'web'), web, { recursive: true });
  const index = readFileSync(join(web, 'index.html'), 'utf8');
  if (!index.includes(BUNDLE_TAG)) throw new Error(`web/index.html has no ${BUNDLE_TAG}`);
  writeFileSync(join(web, 'unbundled.html'), index.replace(BUNDLE_TAG,
    '<script type="module" async src="./data/early.mjs"></script>\n  <script type="module" src="./app.mjs"></script>'));
  return web;
}

const summary = (out) => ({
  fcp: median(out.map((r) => r.fcp)), list: median(out.map((r) => r.list)), requests: median(out.map((r) => r.requests)),
  scripts: median(out.map((r) => r.scripts)), scriptBytes: median(out.map((r) => r.scriptBytes)),
  range: [Math.min(...out.map((r) => r.list)), Math.max(...out.map((r) => r.list))],
});

// The bundled tab and the same tab unbundled, loads alternating on one server.
async function measurePair(browser, ws, webRoot, runs, want) {
  const { server, url } = await serveTab(ws, [], { startTimeoutMs: 600000, webRoot });
  try {
    const out = { bundled: [], unbundled: [] };
    for (let i = 0; i < runs; i++) {
      const order = i % 2 ? ['unbundled', 'bundled'] : ['bundled', 'unbundled'];
      for (const which of order) {
        const r = await oneLoad(browser, url, want, which === 'bundled' ? '/' : '/unbundled.html');
        console.log(`    run ${i + 1} ${which}: first paint ${r.fcp.toFixed(0)} ms, list drawn ${r.list.toFixed(0)} ms, `
          + `${r.scripts} script files (${(r.scriptBytes / 1024).toFixed(1)} KB), ${r.requests} API requests`);
        out[which].push(r);
      }
    }
    return { bundled: summary(out.bundled), unbundled: summary(out.unbundled) };
  } finally {
    await stopTab(server);
  }
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
    return summary(out);
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
  const pairs = [];
  try {
    const oldWeb = beforeWeb(tmp.dir);
    for (const count of COUNTS) {
      const ws = join(tmp.dir, `ws-${count}`);
      const t0 = Date.now();
      makeManyWorkflows(ws, count, { runs: 5 });
      console.log(`${count} workflows made in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      const want = Math.min(OVERVIEW_PAGE, count);
      if (UNBUNDLED) {
        console.log('  this tree, bundled and unbundled, loads alternating:');
        const pair = await measurePair(browser, ws, webWithUnbundled(tmp.dir), RUNS, want);
        lines.push([count, 'paged', pair.bundled], [count, 'unbundled', pair.unbundled]);
        pairs.push({ count, ...pair });
      } else {
        console.log('  paged overview (this tree):');
        lines.push([count, 'paged', await measure(browser, ws, join(ROOT, 'web'), RUNS, want)]);
      }
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
  console.log('\nworkflows | tab | first paint (median) | list drawn (median, range) | API requests until drawn | script files, KB on the wire');
  for (const [count, which, r] of lines) {
    console.log(`${count} | ${which} | ${r.fcp.toFixed(0)} ms | ${r.list.toFixed(0)} ms (${r.range.map((x) => x.toFixed(0)).join('–')}) | ${r.requests}`
      + ` | ${r.scripts ?? '?'}, ${r.scriptBytes === undefined ? '?' : (r.scriptBytes / 1024).toFixed(1)}`);
  }
  for (const count of COUNTS) {
    const p = lines.find((l) => l[0] === count && l[1] === 'paged');
    const b = lines.find((l) => l[0] === count && l[1] === 'before');
    if (p && b) console.log(`${count}: list drawn ${(b[2].list / p[2].list).toFixed(1)}x sooner paged`);
    if (p) console.log(`${count}: target first paint and list <= 1000 ms: ${p[2].fcp <= 1000 && p[2].list <= 1000 ? 'met' : 'NOT met'}`);
  }
  if (JSON_OUT) console.log(JSON.stringify(pairs.length === 1 ? pairs[0] : pairs));
}

main().catch((err) => { console.error(err); process.exit(1); });
