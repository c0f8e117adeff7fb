// A workspace met for the first time, as its owner sees it in the tab: while
// the tick brings schedule-runs.json in a batch a pass (/api/health
// tick.importing), the server-mode banner says whose history is coming in
// and that the goal check waits for it; once it is in, the note goes without
// a reload. Real `pulse serve` with its tick, real headless Chromium;
// screenshot tests/artifacts/importing_note.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { join } from 'node:path';

import { startServer, makeTempDir, request, setNow, waitFor } from '../server/helpers.mjs';
import { makeManyWorkflows } from '../server/many_workflows.mjs';
import { browserSkip, launchBrowser, screenshot } from './helpers.mjs';
import { vendorWeb } from '../../scripts/vendor-web.mjs';

const skip = browserSkip(import.meta.url, { pulse: true });
const opts = { skip, timeout: 120000 };

let tmp;
let server;
let context;

before(async () => {
  if (skip) return;
  vendorWeb();
  tmp = makeTempDir('pulse-importing-note-');
  const ws = join(tmp.dir, 'ws');
  // 600 runs never imported: batches of 250 take three passes, 3 s apart.
  makeManyWorkflows(ws, 1, { runs: 600, imported: false });
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-08T12:00:00Z');
  server = await startServer(ws, ['--now-file', nowFile, '--tick-seconds', '3', '--import-batch', '250']);
  context = await launchBrowser(join(tmp.dir, 'profile'));
});

after(async () => {
  if (context) await context.close();
  if (server) await server.stop();
  if (tmp) tmp.cleanup();
});

test('the banner says whose run history is still coming in, and the note goes once it is in', opts, async () => {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  const health = async () => (await request(`${server.url}api/health`)).body.tick;
  const first = await waitFor(async () => {
    const h = (await request(`${server.url}api/health`)).body;
    return h.ticks >= 1 && !h.tick.running ? h.tick : null;
  }, { what: 'the first pass', timeoutMs: 20000, intervalMs: 20 });
  assert.equal(first.importing, 1, 'the first pass left the workflow importing');
  await page.goto(`${server.url}?nosw#/`);
  const note = page.locator('#mode-banner #importing-note');
  await note.waitFor({ timeout: 15000 });
  assert.equal((await note.innerText()).replace(/\s+/g, ' ').trim(),
    'Bringing in the run history (schedule-runs.json) of 1 workflow, a batch each tick; ' +
    'a workflow\'s goal check waits until its history is in.');
  await screenshot(page, 'importing_note');
  // The tab reads /api/health again until nothing is importing, then drops the note.
  await note.waitFor({ state: 'detached', timeout: 30000 });
  assert.equal((await health()).importing, 0);
  assert.match(await page.locator('#mode-banner').innerText(), /Served by pulse serve/);
  await page.close();
});
