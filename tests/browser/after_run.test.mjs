// The Pulse tab's schedules card on the real `pulse serve`: three checkboxes
// per schedule and the "After a manual run" row, saved with the owner token
// into workflow.json, and the Workflow Review's state shown as an input.
// Headless Chromium, temp workspace, loopback port.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, PULSE_BIN } from '../node/helpers.mjs';
import { browserSkip, launchBrowser, screenshot, serveTab, stopTab } from './helpers.mjs';
import { vendorWeb } from '../../scripts/vendor-web.mjs';

const skip = browserSkip(import.meta.url, { pulse: true });
const opts = { skip, timeout: 120000 };

let tmp;
let server;
let url;
let context;
let token;
let wfJson;

before(async () => {
  if (skip) return;
  vendorWeb();
  tmp = makeTempDir('pulse-after-run-tab-');
  const ws = join(tmp.dir, 'ws');
  const wf = join(ws, 'Workflow', 'digest');
  mkdirSync(join(wf, 'planning'), { recursive: true });
  wfJson = join(wf, 'workflow.json');
  writeFileSync(wfJson, `${JSON.stringify({
    pulse: { enabled: true },
    schedules: [
      { id: 'daily', cron: '0 7 * * *', enabled: true, after_run: { backup: true, publish: false, notify: true } },
      { id: 'weekend', cron: '0 9 * * 6', enabled: false, pulse_mode: 'off' },
    ],
  }, null, 2)}\n`);
  writeFileSync(join(wf, 'planning', 'plan.json'), JSON.stringify({ steps: [{ id: 'collect' }, { id: 'publish', depends_on: ['collect'] }] }));
  const pre = spawnSync(PULSE_BIN, ['pre-run', '--workspace', ws, '--workflow', 'digest', '--json'], { encoding: 'utf8' });
  assert.equal(pre.status, 0, pre.stderr);
  token = spawnSync(PULSE_BIN, ['token', 'rotate', '--workspace', ws], { encoding: 'utf8' }).stdout.trim();
  ({ server, url } = await serveTab(ws));
  context = await launchBrowser(join(tmp.dir, 'profile'));
});

after(async () => {
  if (context) await context.close();
  await stopTab(server);
  if (tmp) tmp.cleanup();
});

test('the schedules card: three checkboxes per schedule and "After a manual run", saved to workflow.json with the owner token', opts, async () => {
  const problems = [];
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(`${url}/?nosw#token=${token}`);
  await page.locator('.server-panel', { hasText: 'Accepted by the server' }).waitFor();
  await page.goto(`${url}/?nosw#/w/digest/schedules`);
  const card = page.locator('#schedules');
  await card.locator('tr[data-schedule="daily"]').waitFor();
  // The review is an input to the run, with its state.
  assert.match(await card.locator('.review-input').innerText(), /Workflow Review: clean for this plan revision/);
  // Beside it, the review's own conversation (the one `pulse pre-run` ran), not Pulse's.
  const conv = card.locator('details.review-conversation');
  assert.match(await conv.locator('summary').innerText(), /^Workflow Review conversation: 1 review \(its own, not Pulse's\)/);
  await conv.locator('summary').click();
  const turn = conv.locator('.review-turn');
  assert.equal(await turn.count(), 1);
  assert.equal(await turn.getAttribute('data-outcome'), 'clean');
  assert.match(await turn.locator('.review-told').innerText(), /^WORKFLOW REVIEW of digest, plan revision [0-9a-f]{12} \(trigger \w+\)\. Due:\n- no_review: /);
  assert.match(await turn.locator('.review-reply').innerText(), /The plan's 2 steps and their references hold\./);
  const box = (id, key) => card.locator(`input[name="${id}-${key}"]`);
  // The migration at server start: the weekend schedule's pulse_mode off reads as nothing after a run.
  for (const key of ['backup', 'publish', 'notify']) assert.equal(await box('weekend', key).isChecked(), false, key);
  assert.equal(await box('daily', 'backup').isChecked(), true);
  assert.equal(await box('daily', 'publish').isChecked(), false);
  assert.equal(await box('manual', 'notify').isChecked(), true);

  await box('daily', 'publish').click();
  await page.locator('.notice', { hasText: 'After-run options saved for schedule daily' }).waitFor();
  await box('manual', 'notify').click();
  await page.locator('.notice', { hasText: 'After-run options saved for manual runs' }).waitFor();
  await page.waitForFunction(() => !document.querySelector('#schedules input[name="manual-notify"]').disabled);
  const doc = JSON.parse(readFileSync(wfJson, 'utf8'));
  assert.deepEqual(doc.schedules[0].after_run, { backup: true, publish: true, notify: true });
  assert.deepEqual(doc.after_manual_run, { backup: false, publish: false, notify: false });
  assert.equal(doc.schedules[1].pulse_mode, 'off', 'kept in step');
  assert.equal(await box('daily', 'publish').isChecked(), true);
  await screenshot(page, 'after_run_schedules');

  // Without the token the boxes cannot change anything.
  await page.evaluate(() => localStorage.removeItem('pulse.ownerToken'));
  await page.reload();
  await card.locator('tr[data-schedule="daily"]').waitFor();
  const res = await fetch(`${url}/api/workflows/digest/schedules/after-run`, { method: 'POST',
    headers: { 'content-type': 'application/json' }, body: JSON.stringify({ schedule: 'daily', backup: false, publish: false, notify: false }) });
  assert.equal(res.status, 401);
  assert.deepEqual(JSON.parse(readFileSync(wfJson, 'utf8')).schedules[0].after_run, { backup: true, publish: true, notify: true });
  assert.deepEqual(problems, []);
  await page.close();
});
