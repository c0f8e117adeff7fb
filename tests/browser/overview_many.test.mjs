// The overview with 1,000 workflows, served by the real `pulse serve`, in
// headless Chromium: the first screen is one page of rows (not 1,000 in the
// DOM) from a handful of requests, none per workflow; "Show more" and the
// name filter reach the last workflow, which opens.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '../node/helpers.mjs';
import { browserSkip, launchBrowser, screenshot, serveTab, stopTab } from './helpers.mjs';
import { makeManyWorkflows, manyName } from '../server/many_workflows.mjs';
import { OVERVIEW_PAGE } from '../../web/data/overview.mjs';
import { vendorWeb } from '../../scripts/vendor-web.mjs';

const COUNT = 1000;
const skip = browserSkip(import.meta.url, { pulse: true });
const opts = { skip, timeout: 120000 };

let tmp;
let server;
let url;
let context;

before(async () => {
  if (skip) return;
  vendorWeb();
  tmp = makeTempDir('pulse-overview-many-');
  const ws = join(tmp.dir, 'ws');
  makeManyWorkflows(ws, COUNT, { runs: 5 });
  const nowFile = join(tmp.dir, 'now.txt');
  writeFileSync(nowFile, '2026-10-07T12:00:00Z\n');
  // (Its first start opens every new workflow once, which takes a while.)
  ({ server, url } = await serveTab(ws, ['--now-file', nowFile], { startTimeoutMs: 90000 }));
  context = await launchBrowser(join(tmp.dir, 'profile'));
});

after(async () => {
  if (context) await context.close();
  await stopTab(server);
  if (tmp) tmp.cleanup();
});

const names = async (page) => page.locator('#overview .overview-row').evaluateAll((els) => els.map((e) => e.dataset.name));

test('1,000 workflows: one page drawn from a handful of requests; Show more and the filter reach the last one', opts, async () => {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1400, height: 1000 });
  const api = [];
  page.on('request', (r) => { if (new URL(r.url()).pathname.startsWith('/api/')) api.push(new URL(r.url()).pathname + new URL(r.url()).search); });
  await page.goto(`${url}/?nosw#/`);
  const rows = page.locator('#overview .overview-row');
  await rows.nth(OVERVIEW_PAGE - 1).waitFor();
  const first = await names(page);
  assert.equal(first.length, OVERVIEW_PAGE, 'one page of rows in the DOM, not 1,000');
  assert.deepEqual(first, Array.from({ length: OVERVIEW_PAGE }, (_, i) => manyName(i)));
  assert.match(await page.locator('#overview .card-sub').innerText(), new RegExp(`1,000 workflows, by name · showing ${OVERVIEW_PAGE}`));
  assert.match(await rows.first().innerText(), /3 decisions/);
  assert.match(await rows.first().innerText(), /Last recorded check\s+7 Oct 08:00 UTC/i);
  assert.equal(await page.locator('.server-panel .copy').count(), 0, 'on the overview the side panel does not repeat its list');
  assert.ok(api.length <= 4, `first paint made ${api.length} API requests: ${api.join(', ')}`);
  assert.deepEqual(api.filter((p) => p.startsWith('/api/workflows/')), [], 'no request per workflow');
  assert.deepEqual(api.filter((p) => p.startsWith('/api/workflows')), [`/api/workflows?limit=${OVERVIEW_PAGE}`]);
  await screenshot(page, 'overview_1000');

  // The next page comes after the last row, one request.
  await page.locator('#overview-more').click();
  await rows.nth(2 * OVERVIEW_PAGE - 1).waitFor();
  assert.equal(await rows.count(), 2 * OVERVIEW_PAGE);
  assert.equal((await names(page))[OVERVIEW_PAGE], manyName(OVERVIEW_PAGE));
  assert.ok(api.includes(`/api/workflows?limit=${OVERVIEW_PAGE}&cursor=${manyName(OVERVIEW_PAGE - 1)}`), api.join(', '));

  // The filter: wf-009.. is 100 workflows; "Show more" until there is no
  // more ends with the last workflow.
  await page.locator('#overview-q').fill('WF-009');
  await page.locator('#overview-q').press('Enter');
  await page.locator('#overview .overview-row[data-name="wf-00900"]').waitFor();
  await page.locator('#overview .card-sub', { hasText: '100 workflows matching' }).waitFor();
  assert.equal(await rows.count(), OVERVIEW_PAGE);
  for (let shown = OVERVIEW_PAGE; shown < 100; shown += OVERVIEW_PAGE) {
    await page.locator('#overview-more:not([disabled])').click();
    await rows.nth(Math.min(shown + OVERVIEW_PAGE, 100) - 1).waitFor();
  }
  assert.deepEqual(await names(page), Array.from({ length: 100 }, (_, i) => manyName(900 + i)));
  assert.equal(await page.locator('#overview-more').count(), 0, 'no more after the last page');

  // One name: a single page, so worst first again; it opens.
  await page.locator('#overview-q').fill(manyName(COUNT - 1));
  await page.locator('#overview-q').press('Enter');
  await page.locator('#overview .card-sub', { hasText: '1 workflow matching' }).waitFor();
  assert.deepEqual(await names(page), [manyName(COUNT - 1)]);
  await screenshot(page, 'overview_1000_filtered');
  await page.getByRole('link', { name: manyName(COUNT - 1), exact: true }).click();
  await page.locator('#goal-status .status-badge').waitFor();
  assert.equal(new URL(page.url()).hash, `#/w/${manyName(COUNT - 1)}`);
  // With a workflow open, the side panel lists only what the overview read.
  const listed = await page.locator('.server-panel .copy').count();
  assert.ok(listed >= 1 && listed <= 4 * OVERVIEW_PAGE, `the side panel lists ${listed} workflows`);

  // A name nothing contains says so.
  await page.goBack();
  await page.locator('#overview-q').fill('no-such-workflow');
  await page.locator('#overview-q').press('Enter');
  await page.locator('#overview .empty-state', { hasText: 'No workflow name contains' }).waitFor();
});

// data/early.mjs: the page asks for /api/health before app.mjs renders and
// for the overview's first page as soon as health answers, and the app uses
// those answers instead of asking again; a local-mode address asks for no
// page. The page loads one script, the bundle (scripts/bundle-web.mjs), and
// no module one by one.
test('health is asked for before the app runs, the first page once, and not under a local-mode address', opts, async () => {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1400, height: 1000 });
  // In the page, in order: each fetch the page makes, and the moment app.mjs
  // takes over #app (it removes the "Loading Pulse…" placeholder).
  await page.addInitScript(() => {
    window.__events = [];
    const fetch0 = window.fetch;
    window.fetch = function (input, init) {
      window.__events.push(`fetch ${typeof input === 'string' ? input : input.url}`);
      return fetch0.call(this, input, init);
    };
    new MutationObserver((_, obs) => {
      const app = document.getElementById('app');
      if (app && !/Loading Pulse/.test(app.textContent)) { window.__events.push('app'); obs.disconnect(); }
    }).observe(document, { childList: true, subtree: true, characterData: true });
  });
  const api = [];
  const asked = [];  // every request, in the order the browser made them
  page.on('request', (r) => {
    const u = new URL(r.url());
    asked.push(u.pathname + u.search);
    if (u.pathname.startsWith('/api/')) api.push(u.pathname + u.search);
  });
  await page.goto(`${url}/?nosw#/`);
  await page.locator('#overview .overview-row').nth(OVERVIEW_PAGE - 1).waitFor();
  // One script of the page until the list is drawn: the bundle, with every
  // module of app.mjs's import graph in it (the chart's uPlot comes only with
  // a chart). The worker, loaded by URL, may start meanwhile, with the WASM
  // layer it imports: never part of the bundle.
  const scripts = asked.filter((p) => /\.m?js(\?|$)/.test(p));
  const byWorker = (p) => p === '/pulse-worker.mjs' || p.startsWith('/wasm/');
  assert.deepEqual(scripts.filter((p) => !byWorker(p)), ['/dist/app.mjs'], asked.join(', '));
  const events = await page.evaluate(() => window.__events);
  const firstPage = `/api/workflows?limit=${OVERVIEW_PAGE}`;
  const appAt = events.indexOf('app');
  assert.ok(appAt > 0, events.join(' | '));
  // data/early.mjs, first in the bundle, asks for health before the app
  // renders; the first page once health has answered (a static server
  // behind the page would answer it with a 404), which with one bundle is
  // just after the first render, and the app takes that answer.
  assert.deepEqual(events.slice(0, appAt), ['fetch /api/health'], events.join(' | '));
  assert.deepEqual(events.filter((e) => e.startsWith('fetch ')).slice(0, 2), ['fetch /api/health', `fetch ${firstPage}`],
    events.join(' | '));
  assert.equal(api.filter((p) => p === firstPage).length, 1, `the first page once: ${api.join(', ')}`);
  assert.equal(api.filter((p) => p === '/api/health').length, 1, `health once: ${api.join(', ')}`);
  assert.deepEqual(await names(page), Array.from({ length: OVERVIEW_PAGE }, (_, i) => manyName(i)));

  // This browser's copies: no server page is asked for.
  api.length = 0;
  const local = await context.newPage();
  local.on('request', (r) => { const u = new URL(r.url()); if (u.pathname.startsWith('/api/')) api.push(u.pathname + u.search); });
  await local.goto(`${url}/?nosw#/local`);
  await local.locator('#mode-banner[data-mode="local"]').waitFor();
  await local.locator('#overview').waitFor();
  assert.deepEqual(api.filter((p) => p.startsWith('/api/workflows')), [], api.join(', '));
  assert.ok(api.includes('/api/health'), 'the server is still asked whether it is there');
  await local.close();
  await page.close();
});
