// bench/conversation_open.mjs — a Pulse conversation of 10,000 turns opened
// in the Pulse tab, in headless Chromium: from clicking "Open substack" (the
// served tab, `pulse serve`; or the stored local copy, the WASM core, after
// a reload) to the frame after the Pulse chat is drawn.
//
//   node bench/conversation_open.mjs [--turns 10000] [--runs 3]
//
// The database is the Substack fixture (made by the real `pulse` program)
// whose conversation is grown with sql.js to the requested number of turns,
// each with a turn text and a reply of realistic size. Two layouts:
// "rollover" (the rule: a new generation every 90 turns, so the current one
// is short) and "one generation" (every turn in one generation, as when asks
// pile up between goal checks). Only the current generation's newest 200
// entries are read when the tab opens; older ones on demand. Target: < 1 s.
import { readFileSync, writeFileSync, copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import initSqlJs from 'sql.js';
import { ROOT, WASM_DIR, PULSE_BIN, makeTempDir } from '../tests/node/helpers.mjs';
import { startStaticServer, launchBrowser } from '../tests/browser/helpers.mjs';
import { buildPulseTabFixture, FIXTURE_NOW } from '../tests/browser/pulse_tab_fixture.mjs';
import { vendorWeb } from '../scripts/vendor-web.mjs';
import { numberArg, median } from './common.mjs';

const TURNS = numberArg('--turns', 10000);
const RUNS = numberArg('--runs', 3);
const PER_GENERATION = 90;

const TEXT = `PULSE TURN goal_check (tick)\n${'Read goal memory first; record the check; recommend on every pending decision. '.repeat(18)}`;
const REPLY = `Substack Pulse: not measured — subscribers 412 of 1000.\n${'The goal route ran without a reading; the owner was asked once. '.repeat(8)}`;

// Replaces the fixture's conversation with `turns` turns in generations of
// `perGeneration` (each opening with its log line and the charter).
async function growConversation(dbPath, turns, perGeneration) {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(dbPath));
  const sid = db.exec('SELECT session_id FROM pulse_conversation_generations WHERE generation = 1')[0].values[0][0].replace(/-g1$/, '');
  const charter = db.exec("SELECT text FROM pulse_conversation_turns WHERE turn = 'charter' LIMIT 1")[0].values[0][0];
  db.run('DELETE FROM pulse_conversation_turns');
  db.run('DELETE FROM pulse_conversation_generations');
  db.run('BEGIN');
  const gens = Math.ceil(turns / perGeneration);
  const t0 = Date.parse('2026-01-01T00:00:00Z') / 1000;
  const at = (s) => new Date(s * 1000).toISOString().replace('.000Z', 'Z');
  const turn = db.prepare(`INSERT INTO pulse_conversation_turns(generation, at, turn, caller, text, reply, state, pulse_run_id, finished_at)
    VALUES(?, ?, ?, ?, ?, ?, 'completed', ?, ?)`);
  let n = 0;
  for (let g = 1; g <= gens; g++) {
    const start = t0 + (g - 1) * 86400 * 2;
    db.run('INSERT INTO pulse_conversation_generations(generation, session_id, started_at, reason) VALUES(?, ?, ?, ?)',
      [g, `${sid}-g${g}`, at(start), g === 1 ? 'first turn' : `${perGeneration} turns`]);
    turn.run([g, at(start), 'generation', 'platform', `Generation ${g} begins.`, '', '', at(start)]);
    turn.run([g, at(start), 'charter', 'platform', charter, '', '', at(start)]);
    for (let i = 0; i < perGeneration && n < turns; i++, n++) {
      const when = at(start + 60 + i * 60);
      const kind = i % 3 === 0 ? 'goal_check' : i % 3 === 1 ? 'ask_pulse' : 'goal_work';
      turn.run([g, when, kind, kind === 'ask_pulse' ? 'owner' : 'tick', TEXT, REPLY, `pr-bench-${n}`, when]);
    }
  }
  turn.free();
  db.run('COMMIT');
  writeFileSync(dbPath, Buffer.from(db.export()));
  db.close();
  return gens;
}

async function serve(workspace, nowFile) {
  const proc = spawn(PULSE_BIN, ['serve', '--workspace', workspace, '--port', '0', '--no-tick', '--now-file', nowFile,
    '--web-root', join(ROOT, 'web'), '--wasm-root', WASM_DIR], { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: proc.stdout });
    lines.on('line', (l) => { const m = /serving (http:\/\/[^/\s]+)/.exec(l); if (m) resolve(m[1]); });
    proc.once('exit', (c) => reject(new Error(`pulse serve exited ${c}`)));
  });
  return { url, stop: () => new Promise((r) => { proc.once('exit', r); proc.kill('SIGTERM'); }) };
}

const shownSince = (page, mark) => page.evaluate((m) => performance.getEntriesByName('pulse:chat-shown')[0].startTime
  - performance.getEntriesByName(m)[0].startTime, mark);

async function timeServed(context, url, token) {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1300, height: 1000 });
  await page.goto(`${url}/?nosw#token=${token}`);
  const wf = page.locator('.copies .copy[data-name="substack"]');
  await wf.waitFor();
  await page.locator('.server-panel', { hasText: 'Accepted by the server' }).waitFor();
  await page.evaluate(() => { performance.clearMarks(); performance.mark('bench:open-clicked'); });
  await wf.getByRole('button', { name: 'Open substack' }).click();
  await page.waitForFunction(() => performance.getEntriesByName('pulse:chat-shown').length > 0, null, { timeout: 60000 });
  const ms = await shownSince(page, 'bench:open-clicked');
  const rows = await page.locator('#pulse-chat .chat > li').count();
  await page.close();
  return { ms, rows };
}

// The copy is imported once (storing 20 MB in OPFS is the import's cost, not
// the conversation's); each run reloads the page and opens the stored copy.
async function importLocal(context, url, dbPath) {
  const page = await context.newPage();
  await page.goto(`${url}/?now=${FIXTURE_NOW}&mode=local&nosw`);
  await page.locator('#choose-file:not([disabled])').waitFor({ timeout: 60000 });
  await page.locator('#file-input').setInputFiles(dbPath);
  await page.waitForFunction(() => performance.getEntriesByName('pulse:chat-shown').length > 0, null, { timeout: 180000 });
  await page.close();
}

async function timeLocal(context, url) {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1300, height: 1000 });
  await page.goto(`${url}/?now=${FIXTURE_NOW}&mode=local&nosw`);
  const open = page.getByRole('button', { name: 'Open substack' });
  await open.waitFor({ timeout: 60000 });
  await page.evaluate(() => { performance.clearMarks(); performance.mark('bench:open-clicked'); });
  await open.click();
  await page.waitForFunction(() => performance.getEntriesByName('pulse:chat-shown').length > 0, null, { timeout: 60000 });
  const ms = await shownSince(page, 'bench:open-clicked');
  const rows = await page.locator('#pulse-chat .chat > li').count();
  await page.close();
  return { ms, rows };
}

async function layout(name, fixture, tmp, perGeneration) {
  const dbPath = fixture.dbPath;
  copyFileSync(join(tmp, 'pristine.sqlite'), dbPath);
  const gens = await growConversation(dbPath, TURNS, perGeneration);
  console.log(`${name}: ${TURNS} turns in ${gens} generation(s)`);
  const nowFile = join(tmp, 'now');
  writeFileSync(nowFile, `${FIXTURE_NOW}\n`);
  const token = spawnSync(PULSE_BIN, ['token', 'rotate', '--workspace', fixture.workspace], { encoding: 'utf8' }).stdout.trim();
  const server = await serve(fixture.workspace, nowFile);
  const context = await launchBrowser(join(tmp, `profile-${perGeneration}`));
  const web = await startStaticServer();
  try {
    await importLocal(context, web.url, dbPath);
    const served = [];
    const local = [];
    for (let i = 0; i < RUNS; i++) {
      const a = await timeServed(context, server.url, token);
      const b = await timeLocal(context, web.url);
      served.push(a.ms);
      local.push(b.ms);
      console.log(`  run ${i + 1}: served ${a.ms.toFixed(0)} ms (${a.rows} chat rows); local copy ${b.ms.toFixed(0)} ms (${b.rows} chat rows)`);
    }
    const ms = median(served);
    const ml = median(local);
    console.log(`  median: served ${ms.toFixed(0)} ms, local copy ${ml.toFixed(0)} ms (target < 1000 ms: ${Math.max(ms, ml) < 1000 ? 'met' : 'NOT met'})`);
  } finally {
    await context.close();
    await web.close();
    await server.stop();
  }
}

async function main() {
  if (!existsSync(join(WASM_DIR, 'pulse.wasm'))) throw new Error('build/wasm/pulse.wasm is missing: run scripts/build.sh');
  vendorWeb();
  const tmp = makeTempDir('pulse-bench-conversation-');
  try {
    const fixture = await buildPulseTabFixture(tmp.dir);
    const talk = spawnSync(PULSE_BIN, ['talk', '--workspace', fixture.workspace, '--workflow', 'substack', '--now', FIXTURE_NOW,
      '--message', 'hello'], { encoding: 'utf8' });
    if (talk.status !== 0) throw new Error(`pulse talk: ${talk.stderr}`);
    copyFileSync(fixture.dbPath, join(tmp.dir, 'pristine.sqlite'));
    await layout('rollover', fixture, tmp.dir, PER_GENERATION);
    await layout('one generation', fixture, tmp.dir, TURNS);
  } finally {
    tmp.cleanup();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
