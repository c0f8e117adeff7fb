// Issue #37 in the Pulse tab, as a new user meets the demo (scripts/
// demo_workspace.mjs served by the real `pulse serve` on the demo's clock,
// the scheduler tick on), at 1280 × 800 and on a 390 × 844 phone, with a
// screenshot of each in tests/artifacts/attention_*.png:
//  - the overview flags inbox (an expired Gmail login, spikes, a late
//    schedule) though its goal is on track, and counts it in "need attention";
//  - a workflow page starts with "What needs you" (each item with its cause,
//    the decisions with Accept/Change/Dismiss), then the goal card, and is at
//    most two screens before the agent log at 1280 × 800;
//  - addresses hold: a card and its filters in the URL, a direct load lands
//    on the card, the page title names the workflow and the card, an unknown
//    workflow is one page with the list;
//  - the smaller defects: Check now finishes, tables reflow, the focus goes
//    back after Escape, Dismiss has an undo, snoozes, the memory count and a
//    stale save, delivery states as `pulse outbox list` says them, the
//    chart's labels, marks and range, "Stuck after" refusing −5, the banner
//    saying what is connected, no metric name in capitals, the side panel
//    not repeating the list;
//  - axe-core (pinned in package.json) finds no serious or critical
//    violation on the overview, a workflow page and Local copy.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../node/helpers.mjs';
import { startServer, makeTempDir, PULSE_BIN, request } from '../server/helpers.mjs';
import { browserSkip, launchBrowser, screenshot, allowConsoleErrors, startStaticServer } from './helpers.mjs';
import { vendorWeb } from '../../scripts/vendor-web.mjs';

const skip = browserSkip(import.meta.url, { pulse: true });
const opts = { skip, timeout: 180000 };
const AXE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

let tmp;
let ws;
let server;
let context;
let page;

before(async () => {
  if (skip) return;
  vendorWeb();
  tmp = makeTempDir('pulse-attention-tab-');
  ws = join(tmp.dir, 'demo');
  const made = spawnSync('node', [join(ROOT, 'scripts', 'demo_workspace.mjs'), ws, '--pulse', PULSE_BIN], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  server = await startServer(ws, ['--now-file', join(ws, '.pulse', 'demo-now'), '--tick-seconds', '0.5']);
  context = await launchBrowser(join(tmp.dir, 'profile'));
  page = await context.newPage();
  await page.goto(`${server.url}?nosw#token=${server.ownerToken}`);
  await page.locator('.server-panel', { hasText: 'Accepted by the server' }).waitFor();
});

after(async () => {
  if (context) await context.close();
  if (server) await server.stop();
  if (tmp) tmp.cleanup();
});

const WIDTHS = [[1280, 800, 'attention'], [390, 844, 'attention_390']];

async function at(width, height, hash) {
  await page.setViewportSize({ width, height });
  await page.goto('about:blank');
  await page.goto(`${server.url}?nosw${hash}`);
}

// The cards of the open workflow are drawn (no "Loading…" left).
async function drawn() {
  await page.locator('#goal-status').waitFor();
  await page.waitForFunction(() => ![...document.querySelectorAll('#main .card')].some((c) => /Loading…/.test(c.textContent)));
}

// axe-core in the page: the serious and critical violations, one line each.
async function axeProblems() {
  await page.evaluate(AXE);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`);
}

// Elements wider than the screen or their card.
function overflow() {
  return page.evaluate(() => {
    const out = [];
    if (document.documentElement.scrollWidth > innerWidth) out.push(`page ${document.documentElement.scrollWidth} px in ${innerWidth}`);
    for (const card of document.querySelectorAll('#main .card')) {
      const box = card.getBoundingClientRect();
      for (const el of card.querySelectorAll('td, th, li, p')) {
        const r = el.getBoundingClientRect();
        if (r.width && (r.right > box.right + 1 || r.left < box.left - 1)) out.push(`#${card.id} ${el.tagName}`);
      }
    }
    return out.slice(0, 5);
  });
}

for (const [width, height, prefix] of WIDTHS) {
  test(`${width} px: the overview flags inbox and counts it; the side panel does not repeat the list; no metric in capitals; axe`, opts, async () => {
    await at(width, height, '#/');
    const rows = page.locator('#overview .overview-row');
    await rows.nth(2).waitFor();
    assert.deepEqual(await rows.evaluateAll((els) => els.map((e) => [e.dataset.name, e.dataset.goalStatus, e.dataset.rank])),
      [['substack', 'not_measured', '1'], ['inbox', 'on_track', '1'], ['digest', 'on_track', '3']]);
    assert.match(await page.locator('#overview .card-sub').innerText(), /3 workflows, worst first · 2 need attention/);
    const inbox = page.locator('#overview .overview-row[data-name="inbox"] .overview-attention');
    assert.match(await inbox.innerText(), /Needs re-auth: re-connect what run r-\d+ uses .*\+3 more items/);
    assert.equal(await inbox.getAttribute('data-kind'), 'needs_reauth');
    assert.equal(await page.locator('.server-panel .copies').count(), 0, 'the overview is the list; the side panel has the token');
    assert.equal(await page.title(), 'Workflows · Pulse');
    const caps = await page.locator('#overview dt').evaluateAll((els) => els.map((e) => getComputedStyle(e).textTransform));
    assert.ok(caps.every((t) => t === 'none'), `metric names as written: ${caps}`);
    assert.match(await page.locator('#overview dt').first().innerText(), /^subscribers$/);
    assert.deepEqual(await overflow(), []);
    assert.deepEqual(await axeProblems(), []);
    await screenshot(page, `${prefix}_overview`);
  });

  test(`${width} px: substack starts with What needs you, then the goal card; two screens before the agent log; axe`, opts, async () => {
    await at(width, height, '#/w/substack');
    await drawn();
    const order = await page.locator('#main .dashboard > .card, #main .dashboard > .folded-cards > .card')
      .evaluateAll((els) => els.map((e) => e.id));
    assert.deepEqual(order.slice(0, 2), ['needs-you', 'goal-status']);
    assert.equal(order[order.length - 1], 'agent-log');
    const needs = page.locator('#needs-you');
    // The Workflow Review's break that stops runs, with its cause and where to look.
    const review = needs.locator('.attention-item[data-kind="review_broken"]');
    assert.match(await review.innerText(), /Workflow Review found the plan broken \(growth_funnel: .*subscriber_export_v1.*\); runs that touch these steps stop\./);
    assert.equal(await review.locator('a').getAttribute('href'), '#/w/substack/schedules');
    assert.ok(await needs.locator('.decision').count() >= 1, 'the decisions waiting, with Accept/Change/Dismiss');
    assert.equal(await needs.locator('.decision button', { hasText: 'Dismiss' }).count() >= 1, true);
    assert.equal(await page.locator('#goal-status .alarm').count(), 4);
    // The cards between are folded to their title and summary.
    assert.equal(await page.locator('#memory.folded').count(), 1);
    if (width > 600) {
      const top = await page.locator('#agent-log').evaluate((el) => el.getBoundingClientRect().top + scrollY);
      assert.ok(top <= 2 * height, `the agent log starts at ${Math.round(top)} px: at most two screens (${2 * height}) before it`);
    }
    assert.deepEqual(await overflow(), []);
    assert.deepEqual(await axeProblems(), []);
    await screenshot(page, `${prefix}_substack`);
  });
}

test('addresses hold: a card and its filters in the URL, a reload lands on the card, the title names it; an unknown workflow', opts, async () => {
  for (const [width, height, prefix] of WIDTHS) {
    await at(width, height, '#/w/substack/agent-log?status=completed&stuck=45');
    await drawn();
    await page.waitForFunction(() => Math.abs(document.getElementById('agent-log').getBoundingClientRect().top) < 40);
    assert.equal(await page.locator('#agent-log select[aria-label="Status"]').inputValue(), 'completed');
    assert.equal(await page.locator('#agent-log input[aria-label="Stuck after (minutes)"]').inputValue(), '45');
    assert.equal(await page.title(), 'Background agent log · substack · Pulse');
    // A filter chosen in the card goes into the address; a reload keeps it.
    await page.locator('#agent-log select[aria-label="Period"]').selectOption('all');
    await page.waitForFunction(() => location.hash.includes('period=all'));
    assert.match(new URL(page.url()).hash, /^#\/w\/substack\/agent-log\?.*status=completed/);
    await page.reload();
    await drawn();
    await page.waitForFunction(() => Math.abs(document.getElementById('agent-log').getBoundingClientRect().top) < 40);
    assert.equal(await page.locator('#agent-log select[aria-label="Period"]').inputValue(), 'all');
    // "Stuck after" refuses −5 and keeps the filter it had.
    const stuck = page.locator('#agent-log input[aria-label="Stuck after (minutes)"]');
    await stuck.fill('-5');
    await stuck.press('Enter');
    await stuck.blur();
    await page.locator('#stuck-after-error').waitFor();
    assert.match(await page.locator('#stuck-after-error').innerText(), /"-5" is not a whole number of minutes from 1; the filter is unchanged/);
    assert.match(new URL(page.url()).hash, /stuck=45/);
    await screenshot(page, `${prefix}_agent_log_address`);
    // A folded card's own address opens it and lands on it.
    await at(width, height, '#/w/substack/needs-you');
    await drawn();
    await page.waitForFunction(() => Math.abs(document.getElementById('needs-you').getBoundingClientRect().top) < 40);
    await at(width, height, '#/w/substack/memory');
    await drawn();
    await page.waitForFunction(() => Math.abs(document.getElementById('memory').getBoundingClientRect().top) < 40);
    assert.equal(await page.locator('#memory.folded').count(), 0);
    assert.equal(await page.title(), 'Goal memory · substack · Pulse');
    // An unknown workflow: one page that says so and lists the workflows.
    const allow = allowConsoleErrors(context, /404/);
    await at(width, height, '#/w/nosuch');
    await page.locator('#no-such-workflow').waitFor();
    assert.equal(await page.locator('#main .card-error').count(), 0, 'no red card per route');
    assert.equal(await page.locator('#main .card').count(), 1);
    assert.deepEqual(await page.locator('#no-such-workflow li a').allInnerTexts(), ['digest', 'inbox', 'substack']);
    await screenshot(page, `${prefix}_no_such_workflow`);
    allow();
  }
});
