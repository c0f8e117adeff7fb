// The focus-area section of the Pulse tab against the real `pulse serve`:
// Pulse proposes an area with record_pulse_focus_area over the tool route,
// the owner confirms it in the tab (workflow.json changes on disk), and once
// the server's clock passes its end date the tick expires it, which the tab
// shows. Headless Chromium, temp workspace, loopback port, screenshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PULSE_BIN, WASM_DIR, ROOT } from '../node/helpers.mjs';
import { launchBrowser, screenshot } from './helpers.mjs';
import { startServer, makeTempDir, makeWorkspace, pulse, request, waitFor, SUBSTACK_CONFIG, setNow } from '../server/helpers.mjs';
import { vendorWeb } from '../../scripts/vendor-web.mjs';

const ready = existsSync(PULSE_BIN) && existsSync(join(WASM_DIR, 'pulse.wasm')) && existsSync('/usr/bin/chromium');
const opts = { skip: ready ? false : 'needs build/native/pulse, build/wasm and /usr/bin/chromium', timeout: 120000 };

let tmp;
let server;
let context;
let ws;
let nowFile;

before(async () => {
  if (!ready) return;
  vendorWeb();
  tmp = makeTempDir('pulse-focus-tab-');
  ws = makeWorkspace(tmp.dir, { substack: SUBSTACK_CONFIG });
  nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-07T12:00:00Z');
  server = await startServer(ws, ['--tick-seconds', '0.5', '--now-file', nowFile, '--web-root', join(ROOT, 'web'),
    '--wasm-root', WASM_DIR]);
  context = await launchBrowser(join(tmp.dir, 'profile'));
});

after(async () => {
  if (context) await context.close();
  if (server) await server.stop();
});

test('focus areas: proposed by the tool, confirmed in the tab, expired by the tick', opts, async () => {
  const path = join(ws, 'Workflow', 'substack', 'workflow.json');
  const session = pulse(['session', 'open', '--workspace', ws, '--workflow', 'substack', '--turn', 'goal_work']).json;
  const proposed = await request(`${server.url}s/${session.session}/tools/custom/record_pulse_focus_area`, {
    method: 'POST', token: session.token,
    body: { action: 'propose', title: 'Measure subscribers on every growth run', end_date: '2026-10-10', check: 'a run reading daily' } });
  assert.equal(proposed.status, 200, proposed.text);
  assert.equal(proposed.body.result.focus_area.status, 'proposed');

  const page = await context.newPage();
  await page.setViewportSize({ width: 1300, height: 1100 });
  await page.goto(`${server.url}?nosw#token=${server.ownerToken}`);
  const open = async () => {
    await page.locator('.copies .copy[data-name="substack"]').getByRole('button', { name: 'Open substack' }).click();
    await page.locator('#focus-areas').waitFor();
  };
  await open();
  const area = page.locator('#focus-areas .focus-area[data-id="fa-1"]');
  await area.waitFor();
  assert.match(await area.innerText(), /proposed by Pulse/);
  assert.match(await area.innerText(), /until 2026-10-10/);
  // The section sits right under the goal status card.
  const order = await page.evaluate(() => [...document.querySelectorAll('.dashboard > section, .dashboard > .grid')].map((e) => e.id || e.className));
  assert.equal(order.indexOf('focus-areas'), order.indexOf('goal-status') + 1, order.join(','));
  await screenshot(page, 'focus_areas_proposed');

  await area.getByRole('button', { name: /^Confirm/ }).click();
  await page.locator('#focus-areas .focus-area[data-id="fa-1"] .focus-tag-active').waitFor();
  const doc = JSON.parse(readFileSync(path, 'utf8'));
  assert.deepEqual(doc.pulse.focus_areas, ['Measure subscribers on every growth run'], 'confirmed in workflow.json');
  assert.equal(doc.pulse.focus_area_details[0].status, 'active');
  await screenshot(page, 'focus_areas_confirmed');

  // The server's clock moves past the end date; the next tick expires it.
  setNow(nowFile, '2026-10-11T09:00:00Z');
  await waitFor(async () => {
    const r = await request(`${server.url}api/workflows/substack/focus-areas`);
    return r.body.focus_areas[0].status === 'expired';
  }, { what: 'the tick to expire fa-1' });
  await page.reload();
  await open();
  await page.locator('#focus-areas .focus-closed summary').click();
  const closed = page.locator('#focus-areas .focus-closed li[data-id="fa-1"]');
  await closed.waitFor();
  assert.match(await closed.innerText(), /expired/);
  assert.match(await page.locator('#focus-areas').innerText(), /0 of 3 open/);
  assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')).pulse.focus_areas, []);
  await screenshot(page, 'focus_areas_expired');
});
