// Accept in the Pulse tab on a real `pulse serve` that has no Builder
// command: the owner's answer is stored, the apply message for the Builder
// chat is kept in the outbox marked undelivered, and the tab says so in its
// notice. Headless Chromium, temp workspace, loopback port.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, PULSE_BIN } from '../node/helpers.mjs';
import { browserSkip, launchBrowser, screenshot, serveTab, stopTab } from './helpers.mjs';
import { makeWorkspace, SUBSTACK_CONFIG } from '../server/helpers.mjs';
import { vendorWeb } from '../../scripts/vendor-web.mjs';

const skip = browserSkip(import.meta.url, { pulse: true });
const opts = { skip, timeout: 120000 };

const NOW = '2026-10-07T12:00:00Z';
const QUESTION = 'Resume the paused schedules?';

let tmp;
let ws;
let server;
let url;
let context;
let token;
let decisionId;

const cli = (args) => spawnSync(PULSE_BIN, [...args, '--workspace', ws, '--workflow', 'substack', '--now', NOW], { encoding: 'utf8' });

before(async () => {
  if (skip) return;
  vendorWeb();
  tmp = makeTempDir('pulse-apply-outbox-tab-');
  ws = makeWorkspace(tmp.dir, { substack: { ...SUBSTACK_CONFIG, access: [{ account: 'ana', role: 'owner' }] } });
  // The owner has a Builder chat; what is missing is the command to reach it.
  writeFileSync(join(ws, 'Workflow', 'substack', 'chats.json'), JSON.stringify([
    { session_id: 'b-1', kind: 'builder', account: 'ana', last_active_at: '2026-10-07T11:50:00Z', live: true, busy: false }]));
  const made = cli(['decision', 'create', '--question', QUESTION, '--option', 'Resume', '--option', 'Not now']);
  assert.equal(made.status, 0, made.stderr);
  decisionId = Number(made.stdout.trim().match(/\d+/)[0]);
  const rec = cli(['decision', 'recommend', '--id', String(decisionId), '--option', 'Resume', '--why', 'no run for 7 days',
    '--confidence', 'high']);
  assert.equal(rec.status, 0, rec.stderr);
  token = spawnSync(PULSE_BIN, ['token', 'rotate', '--workspace', ws], { encoding: 'utf8' }).stdout.trim();
  const nowFile = join(tmp.dir, 'now.txt');
  writeFileSync(nowFile, `${NOW}\n`);
  ({ server, url } = await serveTab(ws, ['--now-file', nowFile]));
  context = await launchBrowser(join(tmp.dir, 'profile'));
});

after(async () => {
  if (context) await context.close();
  await stopTab(server);
  if (tmp) tmp.cleanup();
});

test('Accept with no Builder command: the tab says the apply message waits in the outbox, undelivered', opts, async () => {
  const problems = [];
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto(`${url}/?nosw#token=${token}`);
  await page.locator('.server-panel', { hasText: 'Accepted by the server' }).waitFor();
  await page.goto(`${url}/?nosw#/w/substack`);
  const item = page.locator('#needs-you .decision', { hasText: QUESTION });
  await item.waitFor();
  await item.getByRole('button', { name: /^Accept/ }).click();
  const notice = page.locator('.notice', { hasText: 'the apply message waits in the outbox' });
  await notice.waitFor();
  const words = await notice.innerText();
  assert.match(words, new RegExp(`^Answered: ${QUESTION.replace('?', '\\?')} Recorded; the apply message`), 'one mark after the question');
  // Said plainly (issue #37): recorded, and waiting for a Builder.
  assert.match(words, /Recorded; the apply message waits in the outbox until a Builder is connected \(pulse serve --builder\)\./);
  assert.doesNotMatch(words, /undelivered: undelivered/);
  assert.equal(words.split('waits in the outbox').length, 2, 'said once');
  await page.locator('#decision-log .fold-toggle').click();
  await page.locator('#decision-log .log-entry', { hasText: QUESTION }).waitFor();
  await screenshot(page, 'apply_message_waits_in_outbox');

  // What the notice says is what the server kept: one apply message, not delivered.
  const box = await (await fetch(`${url}/api/workflows/substack/outbox`)).json();
  const applies = box.messages.filter((m) => m.kind === 'apply_message');
  assert.equal(applies.length, 1);
  assert.equal(applies[0].delivered_at, '');
  assert.match(applies[0].delivery_error, /no Builder command/);
  assert.match(applies[0].text, new RegExp(`The owner answered decision ${decisionId} \\(${QUESTION.replace('?', '\\?')}\\): Resume`));
  assert.deepEqual(problems, []);
  await page.close();
});
