// The focus-area section of the Pulse tab against the real `pulse serve`:
// Pulse proposes an area with record_pulse_focus_area over the tool route,
// the owner confirms it in the tab (workflow.json changes on disk), rejects
// the next proposal, adds one, extends and drops it, and once
// the server's clock passes its end date the tick expires it, which the tab
// shows. What Pulse's other tools record shows too: its QA and fast
// requests, and the decision it raised after a refused call, in Needs you
// with that call. Headless Chromium, temp workspace, loopback port, screenshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WASM_DIR, ROOT } from '../node/helpers.mjs';
import { browserSkip, launchBrowser, screenshot } from './helpers.mjs';
import { startServer, makeTempDir, makeWorkspace, pulse, request, waitFor, SUBSTACK_CONFIG, setNow } from '../server/helpers.mjs';
import { vendorWeb } from '../../scripts/vendor-web.mjs';

const skip = browserSkip(import.meta.url, { pulse: true });
const opts = { skip, timeout: 120000 };

let tmp;
let server;
let context;
let ws;
let nowFile;

before(async () => {
  if (skip) return;
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

test('focus areas: proposed by the tool, confirmed, rejected, added, extended and dropped in the tab, expired by the tick', opts, async () => {
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
  await page.locator('.server-panel', { hasText: 'Accepted by the server' }).waitFor();
  // The card's own address opens it (it is folded below the goal card).
  const open = async () => {
    await page.goto(`${server.url}?nosw#/w/substack/focus-areas`);
    await page.locator('#focus-areas .fold-toggle[aria-expanded="true"]').waitFor();
  };
  await open();
  const area = page.locator('#focus-areas .focus-area[data-id="fa-1"]');
  await area.waitFor();
  assert.match(await area.innerText(), /proposed by Pulse/);
  assert.match(await area.innerText(), /until 2026-10-10/);
  // The section sits right under the goal status card.
  const order = await page.evaluate(() => [...document.querySelectorAll('.dashboard > section, .dashboard > .folded-cards > section')].map((e) => e.id || e.className));
  assert.equal(order.indexOf('focus-areas'), order.indexOf('goal-status') + 1, order.join(','));
  await screenshot(page, 'focus_areas_proposed');

  await area.getByRole('button', { name: /^Confirm/ }).click();
  await page.locator('#focus-areas .focus-area[data-id="fa-1"] .focus-tag-active').waitFor();
  const doc = JSON.parse(readFileSync(path, 'utf8'));
  assert.deepEqual(doc.pulse.focus_areas, ['Measure subscribers on every growth run'], 'confirmed in workflow.json');
  assert.equal(doc.pulse.focus_area_details[0].status, 'active');
  await screenshot(page, 'focus_areas_confirmed');

  // The owner's other actions in the tab: reject Pulse's next proposal, add
  // one, extend it, drop it; each lands in workflow.json.
  const second = await request(`${server.url}s/${session.session}/tools/custom/record_pulse_focus_area`, {
    method: 'POST', token: session.token, body: { action: 'propose', title: 'Post twice a week' } });
  assert.equal(second.status, 200, second.text);
  await page.reload();
  await open();
  const fa2 = page.locator('#focus-areas .focus-area[data-id="fa-2"]');
  await fa2.getByRole('button', { name: /^Reject/ }).click();
  await fa2.waitFor({ state: 'detached' });
  const form = page.locator('#focus-areas form.focus-add');
  await form.getByLabel('Focus on').fill('Owner: a referral experiment');
  await form.getByLabel('Until').fill('2026-10-09');
  await form.getByLabel('Check').fill('10 referrals');
  await form.getByRole('button', { name: 'Add focus area' }).click();
  const fa3 = page.locator('#focus-areas .focus-area[data-id="fa-3"]');
  await fa3.waitFor();
  assert.match(await fa3.innerText(), /active/);
  assert.match(await fa3.innerText(), /until 2026-10-09/);
  await fa3.getByRole('button', { name: /^Extend/ }).click();
  await fa3.getByLabel('New end date').fill('2026-10-30');
  await fa3.getByRole('button', { name: 'Extend', exact: true }).click();
  await page.locator('#focus-areas .focus-area[data-id="fa-3"]', { hasText: 'until 2026-10-30' }).waitFor();
  await screenshot(page, 'focus_areas_added_extended');
  await fa3.getByRole('button', { name: /^Drop/ }).click();
  await fa3.waitFor({ state: 'detached' });
  const afterOwner = JSON.parse(readFileSync(path, 'utf8')).pulse;
  assert.deepEqual(afterOwner.focus_area_details.map((a) => [a.id, a.status]),
    [['fa-1', 'active'], ['fa-2', 'dropped'], ['fa-3', 'dropped']]);
  assert.equal(afterOwner.focus_area_details[2].end_date, '2026-10-30');
  assert.equal(afterOwner.focus_area_details[2].proposed_by, 'owner');
  assert.equal(afterOwner.focus_area_details[2].check, '10 referrals');
  assert.deepEqual(afterOwner.focus_areas, ['Measure subscribers on every growth run']);

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

test('QA and fast requests Pulse recorded are visible in the tab', opts, async () => {
  const session = pulse(['session', 'open', '--workspace', ws, '--workflow', 'substack', '--turn', 'goal_work']).json;
  const call = (tool, body) => request(`${server.url}s/${session.session}/tools/custom/${tool}`, { method: 'POST', token: session.token, body });
  const qa = await call('record_pulse_qa_request', { what: 'check that growth_funnel records subscribers', why: 'no reading for 20 days' });
  assert.equal(qa.status, 200, qa.text);
  const fast = await call('record_pulse_fast_request', { why: 'the owner resumed the schedules' });
  assert.equal(fast.status, 200, fast.text);
  // The tick takes both at once (a fix run for the QA request, a pass for
  // the fast one), but not while another turn of the workflow runs (the
  // day's goal check the clock move above started may still): the page is
  // opened once the server says neither waits and the fix run has ended,
  // and the tab must then show that.
  await waitFor(async () => {
    const r = await request(`${server.url}api/workflows/substack/requests`);
    const rs = r.body.requests || [];
    return rs.length === 2 && rs.every((x) => x.status !== 'pending') && rs.some((x) => x.kind === 'qa' && x.result);
  }, { what: 'the tick to take the QA and the fast request', timeoutMs: 60000 });
  const page = await context.newPage();
  await page.setViewportSize({ width: 1300, height: 1100 });
  await page.goto(`${server.url}?nosw#token=${server.ownerToken}`);
  await page.locator('.server-panel', { hasText: 'Accepted by the server' }).waitFor();
  await page.goto(`${server.url}?nosw#/w/substack/requests`);
  const card = page.locator('#requests');
  await card.locator('.qa-requests li').waitFor();
  const text = await card.innerText();
  assert.match(text, /check that growth_funnel records subscribers/);
  assert.match(text, /why: no reading for 20 days/);
  assert.match(text, /the owner resumed the schedules/);
  // Each shows what became of it, and none is left waiting.
  assert.match(text, /0 requests waiting/);
  assert.match(text, /result: completed/);
  assert.match(text, /taken \d+ \w+ \d\d:\d\d/);
  await card.scrollIntoViewIfNeeded();
  await screenshot(page, 'pulse_requests');
  await page.close();
});

test('a refused update_step, then create_decision_request: the decision waits in Needs you with the refused call', opts, async () => {
  const session = pulse(['session', 'open', '--workspace', ws, '--workflow', 'substack', '--turn', 'goal_work']).json;
  const call = (tool, body) => request(`${server.url}s/${session.session}/tools/custom/${tool}`, { method: 'POST', token: session.token, body });
  const refused = await call('update_step', { step_id: 'growth_funnel', prompt: 'record subscribers' });
  assert.equal(refused.status, 403);
  assert.match(refused.body.reason, /create_decision_request/);
  const asked = await call('create_decision_request', { question: 'May I make growth_funnel record subscribers?', options: ['Yes', 'No'] });
  assert.equal(asked.status, 200, asked.text);
  const id = asked.body.result.decision_id;
  const page = await context.newPage();
  await page.setViewportSize({ width: 1300, height: 1100 });
  await page.goto(`${server.url}?nosw#token=${server.ownerToken}`);
  await page.locator('.server-panel', { hasText: 'Accepted by the server' }).waitFor();
  await page.goto(`${server.url}?nosw#/w/substack/needs-you`);
  const item = page.locator('#needs-you li', { hasText: 'May I make growth_funnel record subscribers?' });
  await item.waitFor();
  const text = await item.innerText();
  assert.match(text, /Pulse asks instead of update_step, which its autonomy held/);
  assert.ok(text.includes(refused.body.reason), text);
  await item.scrollIntoViewIfNeeded();
  await screenshot(page, 'needs_you_refused_call');
  const listed = await request(`${server.url}api/workflows/substack/decisions?status=pending`);
  assert.ok(listed.body.decisions.some((d) => d.id === id && d.context.refused_call.tool === 'update_step'));
  await page.close();
});
