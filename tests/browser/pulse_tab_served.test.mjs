// The Pulse tab served by the real `pulse serve` (mode "Server"): the
// server's workflows, the cards read from its API, the owner token taken from
// the URL fragment, and an Accept that goes through the server and changes
// the workflow's database. Headless Chromium, temp workspace, loopback port.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, PULSE_BIN } from '../node/helpers.mjs';
import { browserSkip, allowConsoleErrors, launchBrowser, screenshot, serveTab, openCard } from './helpers.mjs';
import { buildPulseTabFixture, FIXTURE_NOW, SEED_ALARMS } from './pulse_tab_fixture.mjs';
import { vendorWeb } from '../../scripts/vendor-web.mjs';

const skip = browserSkip(import.meta.url, { pulse: true });
const opts = { skip, timeout: 120000 };

let tmp;
let server;
let url;
let context;
let fixture;
let ownerToken;

before(async () => {
  if (skip) return;
  vendorWeb();
  tmp = makeTempDir('pulse-tab-served-');
  fixture = await buildPulseTabFixture(tmp.dir);
  const nowFile = join(tmp.dir, 'now.txt');
  writeFileSync(nowFile, `${FIXTURE_NOW}\n`);
  // The workspace keeps only the owner token's hash: the token is the one
  // `pulse token rotate` prints.
  ownerToken = spawnSync(PULSE_BIN, ['token', 'rotate', '--workspace', fixture.workspace], { encoding: 'utf8' }).stdout.trim();
  ({ server, url } = await serveTab(fixture.workspace, ['--now-file', nowFile]));
  context = await launchBrowser(join(tmp.dir, 'profile'));
});

after(async () => {
  if (context) await context.close();
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
  if (tmp) tmp.cleanup();
});

test('served mode: the server\'s workflows, the card from its API, Accept through the server with the owner token', opts, async () => {
  const token = ownerToken;
  assert.match(token, /^[0-9a-f]{64}$/);
  const page = await context.newPage();
  await page.setViewportSize({ width: 1400, height: 1000 });
  // The token in the fragment: stored by the page, removed from the address.
  await page.goto(`${url}/?nosw#token=${token}`);
  await page.locator('.mode-switch button.active', { hasText: 'Server' }).waitFor();
  assert.match(await page.locator('#mode-banner').innerText(), /Served by pulse serve/);
  assert.equal(new URL(page.url()).hash, '');
  // The overview lists the server's workflows (the side panel holds the token).
  const wf = page.locator('#overview .overview-row[data-name="substack"]');
  await wf.waitFor();
  assert.match(await wf.innerText(), /Not measured/);
  await page.locator('.server-panel', { hasText: 'Accepted by the server' }).waitFor();
  await wf.getByRole('link', { name: 'substack', exact: true }).click();
  await page.locator('#goal-status .alarms').waitFor();
  const alarms = (await page.locator('#goal-status .alarm .alarm-text').allInnerTexts()).map((t) => t.trim());
  for (const sentence of SEED_ALARMS) assert.ok(alarms.includes(sentence), `missing alarm: ${sentence}`);
  await openCard(page, 'readings');
  await page.locator('#readings .chart canvas').first().waitFor();

  const item = page.locator('#needs-you .decision', { hasText: fixture.decisionQuestion });
  await item.waitFor();
  await item.getByRole('button', { name: /^Accept/ }).click();
  await openCard(page, 'decision-log');
  await page.locator('#decision-log .log-entry', { hasText: fixture.decisionQuestion }).waitFor();
  // The server's own API now reports it answered.
  const answered = await (await fetch(`${url}/api/workflows/substack/decisions?status=answered`)).json();
  assert.ok(answered.decisions.some((d) => d.question === fixture.decisionQuestion), 'answered on the server');
  await screenshot(page, 'pulse_tab_served');

  // Without the token the tab is read-only: Accept, enabled a moment ago on
  // the decision still pending (it has Pulse's recommendation), is disabled,
  // and the server still has that decision pending.
  const pending = page.locator('#needs-you .decision', { hasText: fixture.secondQuestion });
  assert.match(await pending.innerText(), /Pulse recommends/i);
  const accept = pending.getByRole('button', { name: /^Accept/ });
  assert.equal(await accept.isDisabled(), false, 'Accept is enabled with the token');
  await page.getByRole('button', { name: 'Forget token' }).click();
  await page.locator('#needs-you', { hasText: 'Read only' }).waitFor();
  assert.equal(await accept.isDisabled(), true, 'Accept is disabled without the token');
  const still = await (await fetch(`${url}/api/workflows/substack/decisions?status=pending`)).json();
  assert.ok(still.decisions.some((d) => d.question === fixture.secondQuestion), 'still pending on the server');
  assert.match(await page.locator('#needs-you').innerText(), /Read only/);
});

test('served: the overview first, one address per workflow, "Check now" adds Pulse\'s message; a refused token can be replaced', opts, async () => {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(`${url}/?nosw`);
  const row = page.locator('#overview .overview-row[data-name="substack"]');
  await row.waitFor();
  assert.match(await row.innerText(), /Not measured/);
  assert.match(await row.innerText(), /not measured by a workflow run for 20 days/);
  await screenshot(page, 'ux_served_overview');
  // A refused token: the form stays, the right one replaces it. The
  // browser logs the server's 401 for it; nothing else may be logged.
  const allowed = allowConsoleErrors(context, /status of 401 \(Unauthorized\)/);
  await page.evaluate(() => localStorage.removeItem('pulse.ownerToken'));
  await page.reload();
  const panel = page.locator('.server-panel');
  // The help names the command plainly (no escaped "&lt;workspace&gt;").
  assert.match(await panel.innerText(), /pulse token rotate --workspace DIR/);
  assert.doesNotMatch(await panel.innerText(), /&lt;|&gt;|&amp;/);
  await panel.getByLabel('Token').fill('0'.repeat(64));
  await panel.getByRole('button', { name: 'Use token' }).click();
  await panel.locator('.card-error', { hasText: 'refused' }).waitFor();
  await panel.getByLabel('Token').fill(ownerToken);
  await panel.getByRole('button', { name: 'Use token' }).click();
  await panel.locator('p', { hasText: 'Accepted by the server' }).waitFor();
  allowed();
  // The workflow's own address, straight to it.
  await page.goto(`${url}/?nosw#/w/substack/messages`);
  await page.locator('#goal-status .alarms').waitFor();
  assert.equal(await page.locator('.mode-switch button[aria-pressed="true"]').innerText(), 'Server');
  const messages = page.locator('#messages');
  await messages.getByRole('button', { name: 'Check now' }).waitFor();
  assert.match(await messages.locator('.owner-actions').innerText(),
    /^The schedules are paused: Pulse's API cannot resume them \(no route changes a schedule\); resume them in the workflow's schedule settings/);
  const before = await messages.locator('.message').count();
  await messages.getByRole('button', { name: 'Check now' }).click();
  await messages.locator('.notice-inline', { hasText: 'Goal check started' }).waitFor();
  await page.waitForFunction((n) => document.querySelectorAll('#messages .message').length > n, before, { timeout: 20000 });
  assert.match(await messages.locator('.message').first().innerText(), /Waiting to be delivered|Delivered|delivered|Not delivered|queued|Kept here in the Pulse tab/);
  await screenshot(page, 'ux_served_messages');
  await page.close();
});

test('served: a local copy open in a served page stays "Local copy" after a reload (the mode bar follows what is shown)', opts, async () => {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(`${url}/?nosw#/local`);
  await page.locator('#choose-file:not([disabled])').waitFor();
  await page.locator('#file-input').setInputFiles(fixture.dbPath);
  await page.locator('.copies .copy.open[data-name="substack"]').waitFor();
  await page.reload();
  await page.locator('#goal-status .alarms').waitFor();
  // The server answers /api/health behind this page, and still the bar says what the pane shows.
  await page.locator('.mode-switch button:not([disabled])', { hasText: 'Server' }).waitFor();
  assert.equal(await page.locator('.mode-switch button[aria-pressed="true"]').innerText(), 'Local copy');
  assert.equal(await page.locator('#mode-banner').getAttribute('data-mode'), 'local');
  assert.match(await page.locator('.open-title').innerText(), /local copy/);
  await page.getByRole('button', { name: 'Server' }).click();
  await page.locator('#overview .overview-row[data-name="substack"]').waitFor();
  assert.equal(new URL(page.url()).hash, '#/server');
  await page.goBack();
  await page.locator('#goal-status .alarms').waitFor();
  assert.equal(await page.locator('.mode-switch button[aria-pressed="true"]').innerText(), 'Local copy');
  await screenshot(page, 'ux_served_local_copy_mode');
  await page.close();
});
