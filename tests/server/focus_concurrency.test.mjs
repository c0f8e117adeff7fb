// A known risk, closed: focus areas live in workflow.json, which the
// Builder saves too. Another process rewrites workflow.json in a loop (each
// save adds its number to builder_saves, swapping the file in the way
// docs/focus-areas.md describes) while Pulse proposes, tracks and closes
// focus areas over the tool route and the owner confirms them over HTTP.
// At the end every save of both sides is in the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { request, startServer, makeTempDir, makeWorkspace, pulse, SUBSTACK_CONFIG } from './helpers.mjs';

const ROUNDS = 8;

// The Builder's save: read, change, then take the file aside with rename(2),
// compare, and link(2) the new one in (or put the taken one back and retry).
const BUILDER = `
import { readFileSync, writeFileSync, renameSync, linkSync, unlinkSync, existsSync } from 'node:fs';
const [path, stop] = [process.argv[2], process.argv[3]];
let retries = 0;
function save(n) {
  for (;;) {
    let text;
    try { text = readFileSync(path, 'utf8'); } catch (e) { if (e.code === 'ENOENT') { retries++; continue; } throw e; }
    const doc = JSON.parse(text);
    doc.builder_saves = [...(doc.builder_saves || []), n];
    const tmp = path + '.builder-new-' + n;
    const aside = path + '.builder-old-' + n;
    writeFileSync(tmp, JSON.stringify(doc, null, 2) + '\\n');
    try { renameSync(path, aside); } catch (e) { unlinkSync(tmp); if (e.code === 'ENOENT') { retries++; continue; } throw e; }
    const same = readFileSync(aside, 'utf8') === text;
    try { linkSync(same ? tmp : aside, path); } catch (e) { if (e.code !== 'EEXIST') throw e; }
    unlinkSync(tmp);
    unlinkSync(aside);
    if (same) return;
    retries++;
  }
}
// Saves until told to stop (and at least 50 times), so it runs through every
// edit Pulse and the owner make.
// A few milliseconds between saves: a Builder saving hundreds of times a
// second, not a spin that no other writer could ever get a turn against.
const pause = new Int32Array(new SharedArrayBuffer(4));
let n = 0;
while (n < 50 || !existsSync(stop)) {
  save(n++);
  Atomics.wait(pause, 0, 0, 3);
}
process.stdout.write(JSON.stringify({ saves: n, retries }));
`;

test('a Builder rewriting workflow.json in a loop and Pulse + the owner editing focus areas: no edit lost', async () => {
  const tmp = makeTempDir('pulse-focus-race-');
  const config = { ...SUBSTACK_CONFIG, pulse: { enabled: true, autonomy: { run: 'ask', outward: 'ask', change: 'ask', answer: 'recommend' } } };
  const ws = makeWorkspace(tmp.dir, { substack: config });
  const path = join(ws, 'Workflow', 'substack', 'workflow.json');
  const script = join(tmp.dir, 'builder.mjs');
  writeFileSync(script, BUILDER);
  const s = await startServer(ws, ['--no-tick']);
  const stop = join(tmp.dir, 'stop');
  const builder = spawn(process.execPath, [script, path, stop], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  builder.stdout.on('data', (d) => { out += d; });
  builder.stderr.on('data', (d) => { err += d; });
  const builderDone = new Promise((resolve) => builder.on('exit', resolve));
  try {
    const session = pulse(['session', 'open', '--workspace', ws, '--workflow', 'substack', '--turn', 'goal_work']).json;
    const tool = (args) => request(`${s.url}s/${session.session}/tools/custom/record_pulse_focus_area`,
      { method: 'POST', token: session.token, body: args });
    const owner = (body) => request(`${s.url}api/workflows/substack/focus-areas`, { method: 'POST', token: s.ownerToken, body });
    let attempts = 0;
    for (let i = 1; i <= ROUNDS; i++) {
      const id = `fa-${i}`;
      const proposed = await tool({ action: 'propose', title: `Experiment ${i}`, check: `check ${i}` });
      assert.equal(proposed.status, 200, proposed.text);
      assert.equal(proposed.body.result.id, id);
      attempts += proposed.body.result.attempts;
      const confirmed = await owner({ action: 'confirm', id });
      assert.equal(confirmed.status, 200, confirmed.text);
      attempts += confirmed.body.attempts;
      const tracked = await tool({ action: 'track', id, note: `progress ${i}` });
      assert.equal(tracked.status, 200, tracked.text);
      const closed = await tool({ action: 'close', id, lesson: `lesson ${i}` });
      assert.equal(closed.status, 200, closed.text);
    }
    assert.equal(builder.exitCode, null, `the Builder was still saving through all of it: ${err}`);
    writeFileSync(stop, '');
    const code = await builderDone;
    assert.equal(code, 0, err);
    const { saves, retries } = JSON.parse(out);
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    assert.deepEqual(doc.builder_saves, Array.from({ length: saves }, (_, n) => n), 'every Builder save is in the file');
    const details = doc.pulse.focus_area_details;
    assert.equal(details.length, ROUNDS);
    for (let i = 1; i <= ROUNDS; i++) {
      const a = details.find((d) => d.id === `fa-${i}`);
      assert.equal(a.status, 'done', JSON.stringify(a));
      assert.equal(a.lesson, `lesson ${i}`);
      assert.equal(a.tracking[0].note, `progress ${i}`);
      assert.equal(a.check, `check ${i}`);
    }
    assert.deepEqual(doc.goal, SUBSTACK_CONFIG.goal, 'the keys nobody edited are intact');
    // Both sides did meet (the race was real), and neither gave up.
    console.log(`builder: ${saves} saves, ${retries} retries; Pulse: ${attempts} reads of workflow.json for ${ROUNDS * 2} propose/confirm edits`);
  } finally {
    if (builder.exitCode === null) builder.kill();
    await s.stop();
  }
});

test('bad focus-area input: one line naming the problem, workflow.json byte-identical', async () => {
  const tmp = makeTempDir('pulse-focus-bad-');
  const ws = makeWorkspace(tmp.dir, { substack: SUBSTACK_CONFIG });
  const path = join(ws, 'Workflow', 'substack', 'workflow.json');
  const now = ['--now', '2026-10-07T12:00:00Z'];
  const cli = (...args) => pulse(['focus', ...args, '--workspace', ws, '--workflow', 'substack', ...now]);
  for (const t of ['a', 'b', 'c']) assert.equal(cli('propose', '--title', t).status, 0);
  assert.equal(cli('drop', '--id', 'fa-3').status, 0);
  assert.equal(cli('propose', '--title', 'c2').status, 0);
  const before = readFileSync(path);
  const cases = [
    [['propose', '--title', 'fourth'], /at most 3 focus areas are open/],
    [['propose', '--title', 'late', '--end-date', '2026-10-01'], /end date 2026-10-01 is in the past/],
    [['confirm', '--id', 'fa-9'], /no focus area "fa-9"/],
    [['confirm', '--id', 'fa-3'], /fa-3 is dropped/],
    [['extend', '--id', 'fa-1'], /--end-date/],
    [['extend', '--id', 'fa-1', '--end-date', 'soon'], /end date "soon" is not a day/],
  ];
  for (const [args, reason] of cases) {
    const r = cli(...args);
    assert.notEqual(r.status, 0, args.join(' '));
    assert.match(r.stderr, reason, args.join(' '));
    assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
    assert.deepEqual(readFileSync(path), before, `${args.join(' ')}: workflow.json unchanged`);
  }
  const listed = pulse(['focus', 'list', '--workspace', ws, '--workflow', 'substack', '--json']);
  assert.deepEqual(listed.json.focus_areas.map((a) => [a.id, a.status]),
    [['fa-1', 'proposed'], ['fa-2', 'proposed'], ['fa-3', 'dropped'], ['fa-4', 'proposed']]);
  for (const a of listed.json.focus_areas) for (const k of ['id', 'title', 'status', 'end_date', 'check', 'lesson']) assert.ok(k in a, k);
  // The HTTP route: the owner token, the same refusals.
  const s = await startServer(ws, ['--no-tick']);
  try {
    const url = `${s.url}api/workflows/substack/focus-areas`;
    assert.equal((await request(url, { method: 'POST', body: { action: 'confirm', id: 'fa-1' } })).status, 401);
    const httpCases = [
      [{ action: 'propose', title: 'fourth' }, 409, /at most 3 focus areas are open/],
      [{ action: 'add', title: 'late', end_date: '2026-10-01' }, 400, /end date 2026-10-01 is in the past/],
      [{ action: 'confirm', id: 'fa-9' }, 404, /no focus area "fa-9"/],
      [{ action: 'confirm', id: 'fa-3' }, 409, /fa-3 is dropped/],
      [{ action: 'extend', id: 'fa-1' }, 400, /an end date is required/],
    ];
    for (const [body, status, reason] of httpCases) {
      const bad = await request(url, { method: 'POST', token: s.ownerToken, body });
      assert.equal(bad.status, status, `${JSON.stringify(body)}: ${bad.text}`);
      assert.match(bad.body.error, reason);
      assert.doesNotMatch(bad.body.error, /\n/);
      assert.deepEqual(readFileSync(path), before, `${JSON.stringify(body)}: workflow.json unchanged`);
    }
    const list = await request(url);
    assert.equal(list.body.focus_areas.length, 4);
  } finally {
    await s.stop();
  }
  // A workflow.json that is invalid when Pulse wants to write it: refused, untouched.
  writeFileSync(path, '{"pulse": {"enabled": tru');
  const broken = readFileSync(path);
  const r = cli('propose', '--title', 'while broken');
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /workflow\.json/);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.deepEqual(readFileSync(path), broken);
});

// The owner's five actions — confirm, reject, add, extend, drop — on the
// command line and over HTTP, each seen in workflow.json.
test('the owner confirms, rejects, adds, extends and drops, with pulse focus and over HTTP', async () => {
  const tmp = makeTempDir('pulse-focus-owner-');
  const ws = makeWorkspace(tmp.dir, { cli: SUBSTACK_CONFIG, http: SUBSTACK_CONFIG });
  const now = ['--now', '2026-10-07T12:00:00Z'];
  const details = (wf) => JSON.parse(readFileSync(join(ws, 'Workflow', wf, 'workflow.json'), 'utf8')).pulse;
  const byId = (wf) => Object.fromEntries(details(wf).focus_area_details.map((a) => [a.id, a]));
  const cli = (...args) => {
    const r = pulse(['focus', ...args, '--workspace', ws, '--workflow', 'cli', ...now, '--json']);
    assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    return r.json;
  };
  writeFileSync(join(tmp.dir, 'now'), '2026-10-07T12:00:00Z\n');
  const s = await startServer(ws, ['--no-tick', '--now-file', join(tmp.dir, 'now')]);
  const http = async (body) => {
    const r = await request(`${s.url}api/workflows/http/focus-areas`, { method: 'POST', token: s.ownerToken, body });
    assert.equal(r.status, 200, `${JSON.stringify(body)}: ${r.text}`);
    return r.body;
  };
  try {
    const legs = {
      cli: {
        propose: (title) => cli('propose', '--title', title).id,
        act: (action, id, extra = []) => cli(action, '--id', id, ...extra),
        add: (title, end) => cli('add', '--title', title, '--end-date', end, '--check', 'two posts a week').id,
      },
      http: {
        propose: async (title) => {
          const r = pulse(['focus', 'propose', '--title', title, '--workspace', ws, '--workflow', 'http', ...now, '--json']);
          assert.equal(r.status, 0, r.stderr);
          return r.json.id;
        },
        act: (action, id, extra = []) => http({ action, id, ...(extra.length ? { end_date: extra[1] } : {}) }),
        add: async (title, end) => (await http({ action: 'add', title, end_date: end, check: 'two posts a week' })).id,
      },
    };
    for (const [wf, leg] of Object.entries(legs)) {
      const a = await leg.propose('Confirm me');
      const b = await leg.propose('Reject me');
      await leg.act('confirm', a);
      await leg.act('reject', b);
      const c = await leg.add('Added by the owner', '2026-10-20');
      await leg.act('extend', c, ['--end-date', '2026-11-15']);
      await leg.act('drop', a);
      const areas = byId(wf);
      assert.equal(areas[a].status, 'dropped', `${wf}: confirmed, then dropped`);
      assert.equal(areas[b].status, 'dropped', `${wf}: rejected`);
      assert.equal(areas[c].status, 'active', `${wf}: the owner's addition is active at once`);
      assert.equal(areas[c].proposed_by, 'owner');
      assert.equal(areas[c].end_date, '2026-11-15', `${wf}: extended`);
      assert.equal(areas[c].check, 'two posts a week');
      assert.deepEqual(details(wf).focus_areas, ['Added by the owner'], `${wf}: the active list every reader uses`);
    }
    const listed = await request(`${s.url}api/workflows/http/focus-areas?open=true`);
    assert.deepEqual(listed.body.focus_areas.map((x) => x.title), ['Added by the owner']);
  } finally {
    await s.stop();
  }
});
