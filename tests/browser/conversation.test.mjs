// Talking to Pulse and the Pulse chat in headless Chromium: the owner's
// message typed into the Talk box goes through the real `pulse serve` into
// Pulse's conversation, the reply appears in the chat view, an ask thread's
// rounds are folded into one "Builder ↔ Pulse: N rounds" block with its last
// decision, and the same conversation reads from a local copy of the
// database (the WASM core, offline). Screenshots in tests/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import initSqlJs from 'sql.js';
import { makeTempDir, PULSE_BIN, WASM_DIR, ROOT } from '../node/helpers.mjs';
import { browserSkip, launchBrowser, screenshot, startStaticServer, ARTIFACTS, openCard } from './helpers.mjs';
import { buildPulseTabFixture, FIXTURE_NOW } from './pulse_tab_fixture.mjs';
import { vendorWeb } from '../../scripts/vendor-web.mjs';

const skip = browserSkip(import.meta.url, { pulse: true });
const opts = { skip, timeout: 180000 };

let tmp;
let fixture;
let context;

// Two rounds of one ask thread from the Builder chat, as the ask turns
// record them: round 1 Pulse asks back, round 2 decides.
async function addAskThread(dbPath) {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(dbPath));
  const gen = db.exec('SELECT MAX(generation) FROM pulse_conversation_generations')[0].values[0][0];
  const add = (round, text, reply) => db.run(
    `INSERT INTO pulse_conversation_turns(generation, at, turn, caller, account, text, reply, state, thread_id, round, finished_at)
     VALUES(?, '2026-10-07T11:0${round}:00Z', 'ask_pulse', 'builder', 'ana', ?, ?, 'completed', 'th-welcome', ?, '2026-10-07T11:0${round}:30Z')`,
    [gen, text, reply, round]);
  const head = (n) => `PULSE TURN ask_pulse (round ${n} of at most 6 of thread th-welcome)\nAnswer as the goal expert.\n\nThe Builder chat wrote:\n`;
  add(1, `${head(1)}Should the welcome email go out on day 1 or day 3?`,
    'question: how many of the last 100 sign-ups opened a day-1 email?\nowner_needed: no');
  add(2, `${head(2)}62 of 100 opened it.`,
    'decision: send it on day 1 (62% open it; the goal needs early readers)\nowner_needed: no');
  writeFileSync(dbPath, Buffer.from(db.export()));
  db.close();
}

async function serve(nowFile) {
  const proc = spawn(PULSE_BIN, ['serve', '--workspace', fixture.workspace, '--host', '127.0.0.1', '--port', '0', '--no-tick',
    '--now-file', nowFile, '--web-root', join(ROOT, 'web'), '--wasm-root', WASM_DIR], { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stderr.on('data', () => {});
  const url = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: proc.stdout });
    const timer = setTimeout(() => reject(new Error('pulse serve did not print its address')), 20000);
    lines.on('line', (line) => {
      const m = /serving (http:\/\/[^/\s]+)/.exec(line);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    proc.once('exit', (code) => reject(new Error(`pulse serve exited with ${code}`)));
  });
  return { url, stop: () => new Promise((r) => { proc.once('exit', r); proc.kill('SIGTERM'); }) };
}

before(async () => {
  if (skip) return;
  vendorWeb();
  tmp = makeTempDir('pulse-chat-');
  fixture = await buildPulseTabFixture(tmp.dir);
  // The conversation begins (a first message from the command line), then
  // a Builder chat's ask thread is recorded in it.
  const talk = spawnSync(PULSE_BIN, ['talk', '--workspace', fixture.workspace, '--workflow', 'substack', '--now', '2026-10-07T10:00:00Z',
    '--message', 'Are we measuring subscribers again?'], { encoding: 'utf8' });
  assert.equal(talk.status, 0, talk.stderr);
  await addAskThread(fixture.dbPath);
  context = await launchBrowser(join(tmp.dir, 'profile'));
});

after(async () => {
  if (context) await context.close();
  if (tmp) tmp.cleanup();
});

test('Talk to Pulse sends the owner\'s words into the conversation; the reply and the ask thread show in the Pulse chat', opts, async () => {
  const nowFile = join(tmp.dir, 'now.txt');
  writeFileSync(nowFile, `${FIXTURE_NOW}\n`);
  const token = spawnSync(PULSE_BIN, ['token', 'rotate', '--workspace', fixture.workspace], { encoding: 'utf8' }).stdout.trim();
  const server = await serve(nowFile);
  const page = await context.newPage();
  try {
    await page.setViewportSize({ width: 1300, height: 1000 });
    await page.goto(`${server.url}/?nosw#token=${token}`);
    const wf = page.locator('#overview .overview-row[data-name="substack"]');
    await wf.waitFor();
    await page.locator('.server-panel', { hasText: 'Accepted by the server' }).waitFor();
    await wf.getByRole('link', { name: 'substack', exact: true }).click();
    for (const id of ['talk-to-pulse', 'pulse-chat']) await openCard(page, id);
    const chat = page.locator('#pulse-chat');
    await chat.locator('.chat').waitFor();

    // The box and its one line of help.
    const box = page.locator('#talk-to-pulse');
    assert.equal(await box.locator('#talk-help').innerText(), 'Ask Pulse why, or give it direction.');
    assert.equal(await page.locator('#talk-send').isDisabled(), true, 'nothing to send yet');
    // The earlier turns: the charter, the first message, the thread folded.
    assert.match(await chat.locator('.chat-turn[data-turn="charter"] .chat-head').innerText(), /Charter · Platform/);
    const thread = chat.locator('.chat-thread[data-thread="th-welcome"]');
    assert.equal(await thread.locator(':scope > details > summary').innerText(),
      'Builder ↔ Pulse: 2 rounds — decision: send it on day 1 (62% open it; the goal needs early readers)');
    assert.equal(await thread.locator('.chat-rounds').isVisible(), false, 'the rounds are collapsed');
    await thread.locator(':scope > details > summary').click();
    assert.equal(await thread.locator('.chat-rounds > .chat-turn').count(), 2);
    const round1 = thread.locator('.chat-rounds > .chat-turn').first();
    assert.match(await round1.locator('.chat-head').innerText(), /Ask · Builder chat \(ana\)/);
    assert.equal(await round1.locator('.chat-said').innerText(), 'Should the welcome email go out on day 1 or day 3?');

    // Send a message: the turn runs on the server; its reply appears in the chat.
    const words = 'Why is the goal not measured? This month, focus on referrals.';
    await page.locator('#talk-text').fill(words);
    await page.locator('#talk-send').click();
    await box.locator('.notice-inline', { hasText: 'Pulse\'s reply appears in the Pulse chat' }).waitFor();
    const mine = chat.locator('.chat-turn.chat-owner', { hasText: words });
    await mine.locator('.chat-reply').waitFor({ timeout: 60000 });
    assert.match(await mine.locator('.chat-head').innerText(), /Message to Pulse · You/);
    assert.equal(await mine.locator('.chat-said').innerText(), words);
    const reply = await mine.locator('.chat-reply').innerText();
    assert.match(reply, /^Pulse\n/);
    assert.match(reply, /Goal: not measured/);
    assert.match(reply, /What I cannot judge/);
    assert.equal(await page.locator('#talk-text').inputValue(), '', 'the box is emptied once sent');
    // The newest turn is in view inside the chat's own scroll.
    assert.equal(await mine.evaluate((el) => {
      const list = el.closest('.chat');
      const a = el.getBoundingClientRect();
      const b = list.getBoundingClientRect();
      return a.top < b.bottom && a.bottom > b.top;
    }), true);
    const shot = await screenshot(page, 'pulse-chat-served');
    assert.ok(existsSync(shot));
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.locator('#talk-to-pulse').screenshot({ path: join(ARTIFACTS, 'talk-to-pulse.png') });
    await chat.screenshot({ path: join(ARTIFACTS, 'pulse-chat-card.png') });
  } finally {
    await page.close();
    await server.stop();
  }
});

test('a local copy shows the same conversation offline, and its Talk box says where to talk to Pulse', opts, async () => {
  const web = await startStaticServer();
  const page = await context.newPage();
  try {
    await page.setViewportSize({ width: 1300, height: 1000 });
    await page.goto(`${web.url}/?now=${FIXTURE_NOW}&mode=local&nosw`);
    await page.locator('#choose-file:not([disabled])').waitFor();
    await page.locator('#file-input').setInputFiles(fixture.dbPath);
    await page.locator('#goal-status').waitFor({ timeout: 60000 });
    for (const id of ['talk-to-pulse', 'pulse-chat']) await openCard(page, id);
    const chat = page.locator('#pulse-chat');
    await chat.locator('.chat').waitFor({ timeout: 60000 });
    const kinds = await chat.locator('.chat > li').evaluateAll((els) => els.map((e) => e.dataset.turn || `thread:${e.dataset.thread}`));
    assert.deepEqual(kinds, ['charter', 'ask_pulse', 'thread:th-welcome', 'ask_pulse']);
    assert.match(await chat.locator('.chat-thread > details > summary').innerText(), /^Builder ↔ Pulse: 2 rounds — decision: send it on day 1/);
    assert.match(await chat.locator('.chat > .chat-turn').last().innerText(), /Why is the goal not measured\?/);
    assert.equal(await page.locator('#talk-text').isDisabled(), true);
    assert.match(await page.locator('#talk-to-pulse').innerText(), /talk to Pulse where it runs/);
    await screenshot(page, 'pulse-chat-local');
  } finally {
    await page.close();
    await web.close();
  }
});
