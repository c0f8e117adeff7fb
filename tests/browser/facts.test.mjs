// The goal check's context facts in the Pulse tab, in headless Chromium on
// the real WASM core: the demo's "inbox" workflow folder (its outside files
// snapshotted into db/db.sqlite by `pulse facts`) imported as a local copy
// shows the Needs re-auth card and the facts card offline, computed in the
// browser from the database alone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { makeTempDir, PULSE_BIN, ROOT } from '../node/helpers.mjs';
import { browserSkip, startStaticServer, launchBrowser, screenshot } from './helpers.mjs';
import { vendorWeb } from '../../scripts/vendor-web.mjs';

const skip = browserSkip(import.meta.url, { pulse: true });
const opts = { skip, timeout: 120000 };

let tmp;
let server;
let context;
let ws;
let now;

before(async () => {
  if (skip) return;
  vendorWeb();
  tmp = makeTempDir('pulse-facts-tab-');
  ws = join(tmp.dir, 'demo');
  const made = spawnSync('node', [join(ROOT, 'scripts', 'demo_workspace.mjs'), ws, '--pulse', PULSE_BIN], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  now = readFileSync(join(ws, '.pulse', 'demo-now'), 'utf8').trim();
  // The snapshot of the outside files, as the server's check takes it.
  const f = spawnSync(PULSE_BIN, ['facts', '--workspace', ws, '--workflow', 'inbox', '--now', now], { encoding: 'utf8' });
  assert.equal(f.status, 0, f.stderr);
  server = await startStaticServer();
  context = await launchBrowser(join(tmp.dir, 'profile'));
});

after(async () => {
  if (context) await context.close();
  if (server) await server.close();
  if (tmp) tmp.cleanup();
});

test('a local copy shows Needs re-auth and the facts since the last check, from the database alone', opts, async () => {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1400, height: 1600 });
  page.on('pageerror', (e) => console.error('pageerror:', e.message));
  await page.goto(`${server.url}/?now=${now}&mode=local&nosw`);
  await page.locator('#choose-file:not([disabled])').waitFor();
  await page.locator('#file-input').setInputFiles(join(ws, 'Workflow', 'inbox', 'db', 'db.sqlite'));
  const reauth = page.locator('#needs-reauth');
  await reauth.waitFor();
  const reauthText = await reauth.innerText();
  assert.match(reauthText, /Re-connect what these runs use/);
  assert.match(reauthText, /invalid_grant/);
  assert.match(reauthText, /MCP server gmail: connection refused/);
  const facts = page.locator('#goal-facts');
  await facts.waitFor();
  // Folded below What needs you and the goal card until opened.
  await facts.locator('.fold-toggle').click();
  const text = await facts.innerText();
  assert.match(text, /Shorter replies: three sentences at most/);
  assert.match(text, /goal step draft-reply/);
  assert.match(text, /\$9\.95 in the last 7 days/);
  assert.match(text, /Run r-0010 cost \$3\.20, 4× the median run, on route reply/);
  assert.match(text, /the goal's route/);
  assert.match(text, /4 of 11 runs failed/);
  assert.match(text, /an error-rate spike/);
  assert.match(text, /unreadable: planning\/changelog\.jsonl:\d+: /);
  await screenshot(page, 'pulse_tab_facts');
  await page.close();
});
