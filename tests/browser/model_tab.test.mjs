// The tab on a server whose Pulse thinks with a model: the server-mode
// banner names the model (and never its key), and the background agent
// log shows a model turn's tokens. Real `pulse serve` against the scripted
// model server (tests/server/model_server.mjs), real headless Chromium;
// screenshot tests/artifacts/model_tab.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { WASM_DIR } from '../node/helpers.mjs';
import { startServer, makeTempDir, request, setNow, waitFor, buildSubstack, PULSE_BIN } from '../server/helpers.mjs';
import { startModelServer } from '../server/model_server.mjs';
import { launchBrowser, screenshot } from './helpers.mjs';
import { vendorWeb } from '../../scripts/vendor-web.mjs';

const ready = existsSync(PULSE_BIN) && existsSync(join(WASM_DIR, 'pulse.wasm')) && existsSync('/usr/bin/chromium');
const opts = { skip: ready ? false : 'needs build/native/pulse, build/wasm and /usr/bin/chromium', timeout: 120000 };
const KEY = 'sk-tab-test-5e0c2a9f1b7d4e83';

let tmp;
let model;
let server;
let context;

before(async () => {
  if (!ready) return;
  vendorWeb();
  tmp = makeTempDir('pulse-model-tab-');
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws);
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, '2026-10-07T12:00:00Z');
  model = await startModelServer({ key: KEY, script: [
    { tools: [{ name: 'get_pulse_state', arguments: { view: 'goal_status' } }], usage: { input: 2400, output: 60 } },
    { text: 'Not measured for 20 days: no run records subscribers.', usage: { input: 2600, output: 40 } },
  ] });
  server = await startServer(ws, ['--no-tick', '--now-file', nowFile, '--model', 'openai:pulse-test-model',
    '--model-url', model.openaiUrl], { env: { OPENAI_API_KEY: KEY } });
  context = await launchBrowser(join(tmp.dir, 'profile'));
});

after(async () => {
  if (context) await context.close();
  if (server) await server.stop();
  if (model) await model.close();
  if (tmp) tmp.cleanup();
});

test('the banner names the model Pulse thinks with, and the agent log shows its turn\'s tokens', opts, async () => {
  const said = await request(`${server.url}api/workflows/substack/messages`, { method: 'POST', token: server.ownerToken,
    body: { text: 'Why is the goal not measured?' } });
  assert.equal(said.status, 202, said.text);
  await waitFor(async () => {
    const rows = (await request(`${server.url}api/workflows/substack/agent-log`)).body.rows;
    return rows.length && rows[0].status === 'completed' ? rows[0] : null;
  }, { what: 'the model turn' });
  const page = await context.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${server.url}?nosw#/w/substack`);
  const banner = page.locator('#mode-banner #thinks-with');
  await banner.waitFor({ timeout: 15000 });
  assert.equal((await banner.innerText()).replace(/\s+/g, ' ').trim(),
    `Pulse thinks with openai:pulse-test-model at ${model.openaiUrl}.`);
  const tokens = page.locator('#agent-log .agent-row .tokens').first();
  await tokens.waitFor({ timeout: 15000 });
  assert.equal(await tokens.innerText(), '5,000 in / 100 out tokens');
  assert.ok(!(await page.content()).includes(KEY), 'the key is not in the page');
  await page.locator('#agent-log').scrollIntoViewIfNeeded();
  await screenshot(page, 'model_tab');
  await page.close();
});
