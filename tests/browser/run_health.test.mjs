// The Run health card in headless Chromium, served by the real `pulse serve`
// on the demo workspace with its tick running: Substack's Pulse was woken
// once for this morning's interrupted run, asked for QA, and the fix runs'
// results show in the card with the line that this workflow's Pulse handles
// QA and architecture.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

import { join } from 'node:path';
import { makeTempDir, PULSE_BIN, WASM_DIR, ROOT } from '../node/helpers.mjs';
import { browserSkip, launchBrowser, screenshot } from './helpers.mjs';
import { startServer, request, waitFor } from '../server/helpers.mjs';
import { vendorWeb } from '../../scripts/vendor-web.mjs';

const skip = browserSkip(import.meta.url, { pulse: true });
const opts = { skip, timeout: 150000 };

let tmp;
let server;
let context;

before(async () => {
  if (skip) return;
  vendorWeb();
  tmp = makeTempDir('pulse-run-health-tab-');
  const ws = join(tmp.dir, 'demo');
  const made = spawnSync('node', [join(ROOT, 'scripts', 'demo_workspace.mjs'), ws, '--pulse', PULSE_BIN], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  server = await startServer(ws, ['--tick-seconds', '0.2', '--now-file', join(ws, '.pulse', 'demo-now'),
    '--web-root', join(ROOT, 'web'), '--wasm-root', WASM_DIR]);
  await waitFor(async () => {
    const list = (await request(`${server.url}api/workflows/substack/requests?kind=qa`)).body.requests;
    return list.length === 2 && list.every((r) => r.status === 'done');
  }, { what: 'the demo\'s fix runs', timeoutMs: 60000 });
  context = await launchBrowser(join(tmp.dir, 'profile'));
});

after(async () => {
  if (context) await context.close();
  if (server) await server.stop();
  if (tmp) tmp.cleanup();
});

test('the Run health card: who handles QA, the failed run Pulse was woken for, its CONCERNS: line, the fix runs\' results', opts, async () => {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1400, height: 1800 });
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${server.url}?nosw#/w/substack/run-health`);
  const card = page.locator('#run-health');
  await card.waitFor({ timeout: 30000 });
  await card.locator('.qa-result').first().waitFor();
  const text = await card.innerText();
  assert.match(text, /This workflow's Pulse handles QA and architecture; results show in its conversation\./);
  assert.match(text, /r-0121 interrupted on growth_funnel/);
  assert.match(text, /step export_subscribers: interrupted after 1800 s/);
  assert.match(text, /CONCERNS: subscriber export stopped halfway/);
  assert.match(text, /Pulse: completed: Run r-0121 interrupted on growth_funnel: QA requested/);
  assert.equal(await card.locator('.qa-requests li[data-status="done"]').count(), 2);
  assert.match(text, /completed — .*Checked "growth_funnel: the subscriber export step fails with 401 unauthorized"/);
  assert.match(text, /morning \(paused\)/);
  // No Technical or Architecture card for a workflow whose Pulse owns them.
  assert.equal(await page.locator('#technical, #architecture').count(), 0);
  await screenshot(page, 'pulse_tab_run_health');
  assert.deepEqual(problems, []);
  await page.close();
});
