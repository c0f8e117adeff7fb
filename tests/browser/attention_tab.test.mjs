// Issue #37 in the Pulse tab, as a new user meets the demo (scripts/
// demo_workspace.mjs served by the real `pulse serve` on the demo's clock,
// the scheduler tick on), at 1280 × 800 and on a 390 × 844 phone, with a
// screenshot of each in tests/artifacts/attention_*.png:
//  - the overview flags inbox (an expired Gmail login, spikes, a late
//    schedule) though its goal is on track, and counts it in "need attention";
//  - a workflow page starts with "What needs you" (each item with its cause,
//    the decisions with Accept/Change/Dismiss), then the goal card, and is at
//    most two screens before the agent log at 1280 × 800; "Since the last
//    check" runs from the check before the one just recorded;
//  - addresses hold: a card and its filters in the URL, a direct load lands
//    on the card, the page title names the workflow and the card, an unknown
//    workflow is one page with the list;
//  - the smaller defects, each at both widths: every card open without a
//    table or list collapsing or overflowing, run ids on one line, no raw
//    ISO time, no sentence glued to the next, text contrast ≥ 4.5:1; Check
//    now finishes; the focus goes back to the button after Escape; Dismiss
//    has an undo; snoozes; the memory count and a stale save's merge offer;
//    delivery states in the words of `pulse outbox list`; the chart's labels
//    never struck through or cut, its marks named on focus, its range in the
//    address; "Stuck after" refusing −5; the banner saying what is connected
//    and Accept's result saying what happened;
//  - axe-core (pinned in package.json) finds no serious or critical
//    violation on the overview, a workflow page and Local copy.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, makeDemo } from '../node/helpers.mjs';
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
let statics;

before(async () => {
  if (skip) return;
  vendorWeb();
  tmp = makeTempDir('pulse-attention-tab-');
  ws = join(tmp.dir, 'demo');
  makeDemo(ws);
  server = await startServer(ws, ['--now-file', join(ws, '.pulse', 'demo-now'), '--tick-seconds', '0.5']);
  context = await launchBrowser(join(tmp.dir, 'profile'));
  page = await context.newPage();
  await page.goto(`${server.url}?nosw#token=${server.ownerToken}`);
  await page.locator('.server-panel', { hasText: 'Accepted by the server' }).waitFor();
});

after(async () => {
  if (context) await context.close();
  if (server) await server.stop();
  if (statics) await statics.close();
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

// Every folded card opened, and drawn.
async function openAll() {
  await page.evaluate(() => { for (const b of document.querySelectorAll('.fold-toggle[aria-expanded="false"]')) b.click(); });
  await page.waitForFunction(() => !document.querySelector('.fold-toggle[aria-expanded="false"]'));
  await drawn();
  await page.locator('#readings .chart canvas').waitFor();
}

// The core API over the server's generic route, as the owner.
async function call(workflow, method, args = {}) {
  const res = await request(`${server.url}api/workflows/${workflow}/call/${method}`, { method: 'POST', token: server.ownerToken, body: args });
  assert.equal(res.status, 200, `${method}: ${res.text}`);
  return res.body.result;
}

function pulse(...args) {
  const r = spawnSync(PULSE_BIN, args, { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

// axe-core in the page: the serious and critical violations, one line each.
async function axeProblems() {
  await page.evaluate(AXE);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`);
}

// Elements wider than the screen or their card (what is visually hidden,
// such as a reflowed table's header row kept for screen readers, aside).
function overflow() {
  return page.evaluate(() => {
    const out = [];
    if (document.documentElement.scrollWidth > innerWidth) out.push(`page ${document.documentElement.scrollWidth} px in ${innerWidth}`);
    const hidden = (el, card) => {
      for (let a = el; a && a !== card; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.clip !== 'auto' || s.clipPath !== 'none' || s.display === 'none') return true;
      }
      return false;
    };
    for (const card of document.querySelectorAll('#main .card')) {
      const box = card.getBoundingClientRect();
      for (const el of card.querySelectorAll('td, th, li, p, dd')) {
        const r = el.getBoundingClientRect();
        if (r.width && (r.right > box.right + 1 || r.left < box.left - 1) && !hidden(el, card)) out.push(`#${card.id} ${el.tagName}`);
      }
    }
    return out.slice(0, 5);
  });
}

// Text with less than 4.5:1 contrast against the background it is drawn
// on (WCAG's relative luminance), one line each.
function lowContrast() {
  return page.evaluate(() => {
    const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
    const lum = ([r, g, b]) => {
      const f = (v) => { const x = v / 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const bgOf = (el) => {
      for (let a = el; a; a = a.parentElement) {
        const c = rgb(getComputedStyle(a).backgroundColor);
        if (c.length === 3 || c[3] === 1) return c.slice(0, 3);
      }
      return [255, 255, 255];
    };
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    const out = new Set();
    for (const el of document.querySelectorAll('#main *, .topbar *, .mode-banner, .mode-banner *, .sidebar *')) {
      if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
      const st = getComputedStyle(el);
      if (st.visibility === 'hidden' || st.display === 'none' || !el.getClientRects().length) continue;
      const r = ratio(rgb(st.color).slice(0, 3), bgOf(el));
      if (r < 4.5) out.add(`${el.className || el.tagName} "${el.textContent.trim().slice(0, 30)}": ${r.toFixed(2)}:1`);
    }
    return [...out].slice(0, 10);
  });
}

// What reads wrong in the main pane's text: a raw RFC 3339 time beside the
// formatted ones, a sentence glued to the next ("0%.A spike").
async function textProblems() {
  const text = await page.locator('#main').innerText();
  return [...(text.match(/\d{4}-\d\d-\d\dT\d\d:\d\d\S*/g) || []).map((t) => `raw time ${t}`),
    ...(text.match(/[a-z0-9%)]\.[A-Z][a-z ]/g) || []).map((t) => `glued "${t}"`)];
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
    assert.deepEqual(await lowContrast(), []);
    assert.deepEqual(await axeProblems(), []);
    await screenshot(page, `${prefix}_overview`);
  });

  test(`${width} px: substack starts with What needs you, then the goal card; two screens before the agent log; since the previous check; axe`, opts, async () => {
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
    assert.deepEqual(await lowContrast(), []);
    assert.deepEqual(await axeProblems(), []);
    await screenshot(page, `${prefix}_substack`);
    // "Since the last check" starts at the check before the one the demo
    // just recorded: the 6 Oct rename that broke the plan and the failed run
    // are there, and Run health counts the run it lists.
    await page.locator('#goal-facts .fold-toggle').click();
    const facts = await page.locator('#goal-facts').innerText();
    assert.match(facts, /6 Oct 16:00 rename_step by ana — subscriber_export_v1 is now subscriber_export/);
    assert.match(facts, /1 of 1 runs failed/);
    assert.doesNotMatch(facts, /No plan changes|0 of 0 runs/);
    assert.match(await page.locator('#run-health .card-sub').innerText(), /^since 30 Sep 2026: 1 run, 1 failed$/);
  });

  test(`${width} px: inbox with every card open: nothing collapses or overflows, run ids whole, no raw time or glued sentence, contrast`, opts, async () => {
    await at(width, height, '#/w/inbox');
    await drawn();
    await openAll();
    assert.deepEqual(await overflow(), []);
    assert.deepEqual(await textProblems(), []);
    assert.deepEqual(await lowContrast(), []);
    // A failed run is one line of text beside its mark, not columns of a
    // few letters ("triag e").
    const rows = await page.locator('#run-health li.alarm').evaluateAll((els) => els.map((li) => {
      const kids = [...li.children].filter((c) => !c.classList.contains('alarm-icon'));
      return [li.dataset.run, Math.max(...kids.map((c) => c.getBoundingClientRect().width)) / li.clientWidth];
    }));
    assert.ok(rows.length >= 4, `the failed runs: ${JSON.stringify(rows)}`);
    for (const [run, share] of rows) assert.ok(share >= 0.6, `run ${run}: its text takes ${Math.round(share * 100)}% of its row`);
    // Run ids are never broken across lines, nor a word of a turn's kind
    // ("housekeepin g").
    const broken = await page.locator('#main .id').evaluateAll((els) => els
      .filter((e) => new Set([...e.getClientRects()].map((r) => Math.round(r.top))).size > 1).map((e) => e.textContent));
    assert.deepEqual(broken, []);
    const kinds = await page.locator('#agent-log td.kind').evaluateAll((tds) => tds.filter((td) => [...td.childNodes]
      .filter((n) => n.nodeType === 3 && n.textContent.trim()).some((n) => {
        const range = document.createRange();
        range.selectNodeContents(n);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
      })).map((td) => td.textContent));
    assert.ok(await page.locator('#agent-log td.kind').count() >= 3);
    assert.deepEqual(kinds, []);
    if (width > 600) {
      // The agent log's headers apart ("DURATIONRESULT / ERROR" was one word).
      const gaps = await page.locator('#agent-log thead tr').first().evaluate((tr) => {
        const ext = (th) => { const r = document.createRange(); r.selectNodeContents(th); const b = r.getBoundingClientRect(); return [b.left, b.right]; };
        const cells = [...tr.children].map(ext);
        return cells.slice(1).map((c, i) => Math.round(c[0] - cells[i][1]));
      });
      assert.ok(gaps.every((g) => g >= 8), `gaps between the headers' words: ${gaps}`);
    } else {
      // On a phone each cell of a reflowed table is a row of its own.
      const narrow = await page.locator('#agent-log table.reflow td, #routes table.reflow td').evaluateAll((tds) => tds
        .filter((td) => td.getBoundingClientRect().width < 0.8 * td.closest('table').getBoundingClientRect().width).length);
      assert.equal(narrow, 0);
    }
    // Each schedule as Healthchecks watches a job: late, the run it expected,
    // the next one, the last, in the time zone it is read in.
    assert.match(await page.locator('#schedules .card-sub').innerText(), /1 schedule · 1 late · times in UTC/);
    assert.match(await page.locator('#schedules tr[data-schedule="daily"] .schedule-watch').innerText(),
      /^late expected 7 Oct 08:00 UTC; next 8 Oct 08:00 UTC · last run 6 Oct 08:00 UTC$/);
    await screenshot(page, `${prefix}_inbox_open`);
  });

  test(`${width} px: the chart's labels are never struck through or cut, its marks are named on focus, its range is in the address`, opts, async () => {
    await at(width, height, '#/w/inbox/readings');
    await drawn();
    const chart = page.locator('#readings .chart');
    await chart.locator('canvas').waitFor();
    await page.waitForFunction(() => document.querySelector('#readings .chart').dataset.labels);
    // The target's and now's labels: inside the canvas, and drawn over the
    // grid (no gridline runs across a label box).
    const labels = await chart.evaluate((el) => {
      const canvas = el.querySelector('canvas');
      const ctx = canvas.getContext('2d');
      return JSON.parse(el.dataset.labels).map((b) => {
        const img = ctx.getImageData(b.x, b.y, b.w, b.h).data;
        let struck = 0;
        for (let y = 0; y < b.h; y++) {
          let run = 0;
          for (let x = 0; x < b.w; x++) {
            const i = (y * b.w + x) * 4;
            const grid = Math.abs(img[i] - 238) <= 3 && Math.abs(img[i + 1] - 240) <= 3 && Math.abs(img[i + 2] - 243) <= 3;
            run = grid ? run + 1 : 0;
            struck = Math.max(struck, run);
          }
        }
        return { ...b, inside: b.x >= 0 && b.y >= 0 && b.x + b.w <= canvas.width && b.y + b.h <= canvas.height, struck: struck / b.w };
      });
    });
    assert.deepEqual(labels.map((l) => l.text), ['target 300', 'now']);
    for (const l of labels) {
      assert.ok(l.inside, `"${l.text}" inside the chart: ${JSON.stringify(l)}`);
      assert.ok(l.struck < 0.3, `"${l.text}" struck through by a gridline: ${JSON.stringify(l)}`);
    }
    // Plan changes, decisions and answers on the time axis, each named on focus.
    const marks = chart.locator('xpath=..').locator('.chart-mark');
    assert.ok(await marks.count() >= 2);
    const names = await marks.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    assert.ok(names.some((n) => /^Plan change, 4 Oct 11:00 UTC: update_step: Shorter replies/.test(n)), names.join('\n'));
    assert.ok(names.some((n) => /^Pulse asked, .* UTC: Pulse asks for a fix: Re-connect Gmail for triage$/.test(n)), names.join('\n'));
    await marks.first().focus();
    const tip = marks.first().locator('.mark-tip');
    assert.equal(await tip.isVisible(), true);
    const box = await tip.boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= width, `the tip within the screen: ${JSON.stringify(box)}`);
    await screenshot(page, `${prefix}_chart`);
    // The range: 30 days in the address, kept on a reload.
    const all = await page.locator('#readings .readings-table summary').innerText();
    await page.locator('#readings .chart-range button', { hasText: '30 d' }).click();
    await page.waitForFunction(() => location.hash === '#/w/inbox/readings?range=30d');
    await page.reload();
    await drawn();
    assert.equal(await page.locator('#readings .chart-range button[aria-pressed="true"]').innerText(), '30 d');
    assert.match(await page.locator('#readings .readings-table summary').innerText(), /\d+ readings? as a table/);
    assert.match(all, /10 readings as a table/);
  });

  test(`${width} px: Check now on a healthy workflow says when its check is done`, opts, async () => {
    await at(width, height, '#/w/digest/messages');
    await drawn();
    await page.locator('#check-now').click();
    const note = page.locator('#messages .notice-inline');
    await page.waitForFunction(() => /Goal check done/.test(document.querySelector('#messages .notice-inline')?.textContent || ''), null, { timeout: 30000 });
    const text = await note.innerText();
    assert.match(text, /^Goal check done at 7 Oct 12:00 UTC: Digest Pulse: on track — weekly_readers \d+ of 500 .*\. Any message it sent is listed below\.$/);
    assert.doesNotMatch(text, /\.\./);
    await screenshot(page, `${prefix}_check_now`);
  });

  test(`${width} px: snooze an item in the tab: the focus comes back after Escape, the item is marked snoozed and stops counting`, opts, async () => {
    await at(width, height, '#/w/inbox/needs-you');
    await drawn();
    const item = page.locator('#needs-you .attention-item[data-kind="schedule_late"]');
    const opener = item.getByRole('button', { name: /^Snooze…/ });
    await opener.click();
    await item.locator('form.snooze-form').waitFor();
    assert.equal(await item.locator('input[type="radio"]:focus').count(), 1, 'the form takes the focus');
    await page.keyboard.press('Escape');
    await item.locator('form.snooze-form').waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement && /^Snooze…/.test(document.activeElement.textContent));
    await opener.click();
    // Until it changes at 1280; a week at 390.
    if (width < 600) await item.getByLabel('a week from now').check();
    await item.getByRole('button', { name: 'Snooze', exact: true }).click();
    const tag = item.locator('.snoozed-tag');
    await tag.waitFor();
    assert.equal(await tag.innerText(), width < 600 ? 'Snoozed until 14 Oct 12:00 UTC' : 'Snoozed until it changes');
    assert.match(await item.getAttribute('class'), /snoozed/);
    const doc = (await request(`${server.url}api/workflows/inbox/goal-status`)).body;
    const late = doc.attention.find((a) => a.kind === 'schedule_late');
    assert.equal(late.snoozed, true);
    assert.equal(late.snooze, width < 600 ? 'until_date' : 'until_it_changes');
    await screenshot(page, `${prefix}_snoozed`);
    // It no longer counts: the overview's row has one item fewer.
    await at(width, height, '#/');
    await page.locator('#overview .overview-row[data-name="inbox"]').waitFor();
    assert.match(await page.locator('#overview .overview-row[data-name="inbox"] .overview-attention').innerText(), /\+2 more items/);
    await at(width, height, '#/w/inbox/needs-you');
    await drawn();
    await item.getByRole('button', { name: /^Unsnooze/ }).click();
    await tag.waitFor({ state: 'detached' });
    assert.equal((await request(`${server.url}api/workflows/inbox/goal-status`)).body.attention.find((a) => a.kind === 'schedule_late').snoozed, false);
  });

  test(`${width} px: the focus goes back to the button that opened a form; the memory count follows a save; a stale save offers a merge`, opts, async () => {
    await at(width, height, '#/w/inbox/needs-you');
    await drawn();
    const decision = page.locator('#needs-you .decision').first();
    await decision.getByRole('button', { name: 'Change…' }).click();
    await decision.locator('form.change-form').waitFor();
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.activeElement && document.activeElement.textContent === 'Change…');

    await at(width, height, '#/w/digest/memory');
    await drawn();
    const memory = page.locator('#memory');
    const count = async () => Number((await memory.locator('.card-sub').innerText()).match(/^(\d+) entr/)[1]);
    const before = await count();
    await memory.getByRole('button', { name: 'Edit' }).click();
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => document.activeElement && document.activeElement.textContent === 'Edit');
    // A line added in the editor counts at once after the save.
    await memory.getByRole('button', { name: 'Edit' }).click();
    const area = memory.locator('textarea');
    const text = await area.inputValue();
    await area.fill(text.replace(/## Open bets\n/, `## Open bets\n- 2026-10-07 [owner answer] a ${width} px bet: two items on Mondays\n`));
    await memory.getByRole('button', { name: 'Save' }).click();
    await memory.locator('.saved-note').waitFor();
    assert.equal(await count(), before + 1);
    // Pulse writes the memory while the owner edits it: the save is refused
    // in words (no API path, no hashes), the draft kept beside the memory as
    // it is now, with a merge and a start-again choice.
    await memory.getByRole('button', { name: 'Edit' }).click();
    await area.fill(`${await area.inputValue()}\n- 2026-10-07 [owner answer] mine, ${width} px\n`);
    await call('digest', 'memory.add', { section: 'lessons', source: 'pulse_inference', text: `Pulse's own line at ${width} px` });
    const allow = allowConsoleErrors(context, /409 \(Conflict\)/);
    await memory.getByRole('button', { name: 'Save' }).click();
    const conflict = memory.locator('.memory-conflict');
    await conflict.waitFor();
    const said = await memory.innerText();
    assert.match(said, /Not saved: the goal memory changed since you opened it/);
    assert.match(await conflict.locator('.memory-now').innerText(), new RegExp(`Pulse's own line at ${width} px`));
    assert.doesNotMatch(said, /\/api\/|[0-9a-f]{16}/);
    assert.equal(await memory.getByRole('button', { name: 'Start again from the current memory' }).count(), 1);
    await screenshot(page, `${prefix}_memory_conflict`);
    await memory.getByRole('button', { name: 'Save mine over it' }).click();
    await memory.locator('.saved-note').waitFor();
    allow();
    assert.match(await memory.innerText(), new RegExp(`mine, ${width} px`));
  });

  test(`${width} px: each delivery in the words of pulse outbox list`, opts, async () => {
    await at(width, height, '#/w/substack/messages');
    await drawn();
    const cli = JSON.parse(pulse('outbox', 'list', '--workspace', ws, '--workflow', 'substack', '--json'));
    const WORDS = { retrying: /: retrying at \d+ \w+ \d\d:\d\d UTC \(the last try failed: /, failed: /: failed, not retried — /,
      delivered: /: delivered \d+ \w+/, not_sent: /^Kept here in the Pulse tab/, queued: /: queued$/ };
    let seen = 0;
    for (const m of cli.messages) {
      const lines = await page.locator(`#messages li.message[data-id="${m.id}"] .delivery`).evaluateAll((els) => els.map((e) => [e.className, e.textContent]));
      assert.equal(lines.length, m.deliveries.length, `message ${m.id}`);
      m.deliveries.forEach((d, i) => {
        assert.match(lines[i][1], WORDS[d.state], `message ${m.id}, ${d.target}: the CLI says ${d.state}`);
        // Red only for what is given up.
        assert.equal(/delivery-failed/.test(lines[i][0]), d.state === 'failed', `message ${m.id}: ${lines[i][0]}`);
        seen++;
      });
    }
    assert.ok(cli.messages.some((m) => m.deliveries.some((d) => d.state === 'retrying')), 'the demo has a retrying Slack delivery');
    assert.ok(seen >= 5);
    await screenshot(page, `${prefix}_messages`);
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
    // Two changes in one moment (before the address is read back) both hold.
    await page.locator('#agent-log').evaluate((card) => {
      const box = card.querySelector('input[type="checkbox"]');
      box.click();
      const group = card.querySelector('select[aria-label="Group by"]');
      group.value = 'run';
      group.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await page.waitForFunction(() => /group=run/.test(location.hash));
    assert.match(new URL(page.url()).hash, /stuckonly=1/);
    assert.match(new URL(page.url()).hash, /period=all/);
    await page.locator('#agent-log').evaluate((card) => card.querySelector('input[type="checkbox"]').click());
    await page.waitForFunction(() => !/stuckonly/.test(location.hash));
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
    assert.equal(await page.locator('#main .view-links').isVisible(), false);
    assert.doesNotMatch(await page.locator('#no-such-workflow').innerText(), /\/api\//);
    assert.deepEqual(await page.locator('#no-such-workflow li a').allInnerTexts(), ['digest', 'inbox', 'substack']);
    await screenshot(page, `${prefix}_no_such_workflow`);
    allow();
  }
});

test('the banner says what is connected; Dismiss waits with an undo; Accept says what happened with no Builder', opts, async () => {
  // A page of its own whose clock the test moves on past the undo's wait
  // (Playwright's clock: the time flows as usual until it is moved).
  const main = page;
  page = await context.newPage();
  await page.clock.install();
  try {
    await dismissUndoAccept();
  } finally {
    await page.close();
    page = main;
  }
});

async function dismissUndoAccept() {
  // 390 px: Dismiss, then Undo: the decision is still waiting.
  await at(390, 844, '#/w/inbox/needs-you');
  await drawn();
  const note = page.locator('#connected-note');
  assert.match(await note.innerText(), /No model and no Builder command are set: Pulse's turns use the built-in rules runner/);
  assert.equal(await note.locator('a').getAttribute('href'), '/docs/models.md');
  assert.equal((await request(`${server.url}docs/models.md`)).status, 200);
  const decision = page.locator('#needs-you .decision').first();
  await decision.getByRole('button', { name: 'Dismiss' }).click();
  const undo = decision.getByRole('button', { name: 'Undo' });
  await undo.waitFor();
  await page.waitForFunction(() => document.activeElement && document.activeElement.textContent === 'Undo');
  await screenshot(page, 'attention_390_dismiss_undo');
  await undo.click();
  await page.waitForFunction(() => document.activeElement && document.activeElement.textContent === 'Dismiss');
  await page.clock.fastForward(7000);  // past the undo's wait (DISMISS_UNDO_MS): nothing was sent
  await page.waitForTimeout(300);
  assert.equal((await call('inbox', 'decision.list', { status: 'pending' })).decisions.length, 1);
  // 1280 px: Dismiss for good; the log shows it dismissed, with no Record result.
  await at(1280, 800, '#/w/inbox/needs-you');
  await drawn();
  await page.locator('#needs-you .decision').first().getByRole('button', { name: 'Dismiss' }).click();
  await page.locator('#needs-you .decision .dismiss-pending').waitFor();
  await page.clock.fastForward(7000);
  await page.locator('#needs-you .decision').waitFor({ state: 'detached', timeout: 20000 });
  assert.equal((await call('inbox', 'decision.list', { status: 'pending' })).decisions.length, 0);
  await page.locator('#decision-log .fold-toggle').click();
  const logged = page.locator('#decision-log li', { hasText: 'Re-connect Gmail for triage' });
  assert.match(await logged.innerText(), /dismissed/i);
  assert.equal(await logged.getByRole('button', { name: /Record result/ }).count(), 0);
  // Accept with no Builder connected: recorded, and the apply message waits.
  await at(1280, 800, '#/w/substack/needs-you');
  await drawn();
  await page.locator('#needs-you .decision').first().getByRole('button', { name: /^Accept/ }).click();
  await page.waitForFunction(() => /Answered:/.test(document.querySelector('.dashboard > .notice')?.textContent || ''));
  assert.match(await page.locator('.dashboard > .notice').innerText(),
    /^Answered: Substack Pulse: the goal is not measured\. Which fix should come first\? Recorded; the apply message waits in the outbox until a Builder is connected \(pulse serve --builder\)\.$/);
  await screenshot(page, 'attention_accept_no_builder');
}

// Last: the server stops, so its connections close and the database file
// holds everything (a copy of a file a running server still writes may lack
// what sits in its WAL), and the tab comes from a plain static server.
test('Local copy computes the same attention in the browser; axe finds nothing serious on it at either width', opts, async () => {
  const served = (await request(`${server.url}api/workflows/inbox/goal-status`)).body;
  const now = served.checked_at;
  await server.stop();
  statics = await startStaticServer();
  for (const [width, height, prefix] of WIDTHS) {
    await page.setViewportSize({ width, height });
    await page.goto(`${statics.url}/?nosw&mode=local&now=${now}`);
    if (width === WIDTHS[0][0]) {
      await page.locator('#choose-file:not([disabled])').waitFor();
      await page.locator('#file-input').setInputFiles(join(ws, 'Workflow', 'inbox', 'db', 'db.sqlite'));
      await page.waitForFunction(() => location.hash.startsWith('#/copy/inbox'));
      await drawn();
    }
    await page.goto(`${statics.url}/?nosw&now=${now}#/copy/inbox/needs-you`);
    await drawn();
    const kinds = await page.locator('#needs-you .attention-item').evaluateAll((els) => els.map((e) => e.dataset.kind));
    assert.deepEqual(kinds, served.attention.filter((a) => a.kind !== 'goal_alarm' && a.kind !== 'decision_waiting').map((a) => a.kind));
    assert.deepEqual(kinds, ['needs_reauth', 'error_rate_spike', 'cost_spike', 'schedule_late']);
    assert.deepEqual(await overflow(), []);
    assert.deepEqual(await lowContrast(), []);
    assert.deepEqual(await axeProblems(), []);
    await screenshot(page, `${prefix}_local_copy`);
  }
});
