// `pulse decision …` and `pulse memory …` end to end: the real native binary
// against a temp workspace (the command line and exit statuses of docs/decisions.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { PULSE_BIN, makeTempDir } from './helpers.mjs';

function workspace(autonomy = { run: 'ask', outward: 'ask', change: 'ask', answer: 'recommend' }) {
  const tmp = makeTempDir('pulse-decisions-');
  const wf = join(tmp.dir, 'Workflow', 'substack');
  mkdirSync(wf, { recursive: true });
  writeFileSync(join(wf, 'workflow.json'), JSON.stringify({ pulse: { enabled: true, autonomy } }));
  writeFileSync(join(wf, 'soul.md'), 'Grow Substack to 1000 subscribers.\n');
  const run = (...args) => {
    const r = spawnSync(PULSE_BIN, [...args, '--workspace', tmp.dir, '--workflow', 'substack'], { encoding: 'utf8' });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  return { ...tmp, wf, run, memory: join(wf, 'memory', 'goal.md') };
}

test('create → recommend → Pulse answer refused → owner accept → memory → outcome → outcomes_due', (t) => {
  const w = workspace();
  t.after(w.cleanup);
  const now = (s) => ['--now', s];

  const created = w.run('decision', 'create', '--question', 'Which route runs next week?',
    '--option', 'growth_funnel', '--option', 'publish_review', '--blocks', 'next week schedule',
    ...now('2026-10-07T09:00:00Z'));
  assert.equal(created.code, 0, created.err);
  const id = created.out.trim();
  assert.match(id, /^\d+$/);

  const rec = w.run('decision', 'recommend', '--id', id, '--option', 'growth_funnel',
    '--why', 'no reading for 20 days', '--evidence', 'growth_funnel ran 6 times without a reading',
    '--confidence', 'medium', '--session', 'schedule-goallead--ab12-g1', ...now('2026-10-07T09:05:00Z'));
  assert.equal(rec.code, 0, rec.err);

  // Pulse's own session cannot answer: exit 1, the reason, still pending, no memory line.
  const refused = w.run('decision', 'answer', '--id', id, '--accept', '--session', 'schedule-goallead--ab12-g1');
  assert.equal(refused.code, 1);
  assert.match(refused.err, /only the owner answers/);
  assert.match(refused.err, /stays pending/);
  let list = JSON.parse(w.run('decision', 'list', '--json', '--status', 'pending').out);
  assert.equal(list.decisions.length, 1);
  assert.equal(list.decisions[0].status, 'pending');
  assert.equal(list.decisions[0].recommendation.option, 'growth_funnel');
  assert.equal(list.decisions[0].recommendation.confidence, 'medium');
  assert.equal(existsSync(w.memory), false);

  // The owner accepts.
  const ans = w.run('decision', 'answer', '--id', id, '--accept', '--note', 'measure it this time',
    ...now('2026-10-07T10:00:00Z'));
  assert.equal(ans.code, 0, ans.err);
  const memory = readFileSync(w.memory, 'utf8');
  assert.match(memory, /## Owner preferences and answers\n- 2026-10-07 \[owner answer\] "Which route runs next week\?" → growth_funnel \(note: measure it this time\); accepted Pulse's recommendation\n/);
  assert.equal(readFileSync(join(w.wf, 'soul.md'), 'utf8'), 'Grow Substack to 1000 subscribers.\n');

  // outcomes_due across --now days: not within a day of the answer, then due, then gone once recorded.
  list = JSON.parse(w.run('decision', 'list', '--json', ...now('2026-10-08T09:59:59Z')).out);
  assert.deepEqual(list.outcomes_due, []);
  list = JSON.parse(w.run('decision', 'list', '--json', ...now('2026-10-08T10:00:01Z')).out);
  assert.deepEqual(list.outcomes_due.map((d) => String(d.id)), [id]);
  assert.equal(list.decisions[0].answer.by, 'owner');
  assert.equal(list.decisions[0].recommendation.status, 'accepted');
  const human = w.run('decision', 'list', ...now('2026-10-08T10:00:01Z'));
  assert.equal(human.code, 0);
  assert.match(human.out, /outcomes due .*#1/);
  assert.match(human.out, /Pulse recommends: growth_funnel \(medium confidence, accepted\)/);

  const outcome = w.run('decision', 'outcome', '--id', id, '--result', 'a reading on 9 Oct: 431',
    ...now('2026-10-09T12:00:00Z'));
  assert.equal(outcome.code, 0, outcome.err);
  list = JSON.parse(w.run('decision', 'list', '--json', ...now('2026-10-10T00:00:00Z')).out);
  assert.deepEqual(list.outcomes_due, []);
  assert.equal(list.decisions[0].outcome.result, 'a reading on 9 Oct: 431');
  assert.match(readFileSync(w.memory, 'utf8'), /- 2026-10-09 \[result\] "Which route runs next week\?" → growth_funnel: a reading on 9 Oct: 431/);

  const shown = JSON.parse(w.run('memory', 'show', '--json').out);
  assert.equal(shown.entry_count, 2);
  assert.equal(shown.consolidate_due, false);
  assert.match(shown.rules, /consolidate past 45/);
});

test('bad input: exit 2 with one line naming the problem, nothing changed', (t) => {
  const w = workspace();
  t.after(w.cleanup);
  const id = w.run('decision', 'create', '--question', 'Q?', '--option', 'a', '--option', 'b').out.trim();
  const cases = [
    [['decision', 'recommend', '--id', '99', '--option', 'a', '--why', 'w', '--confidence', 'low'], /decision 99: no such decision/],
    [['decision', 'recommend', '--id', id, '--option', 'c', '--why', 'w', '--confidence', 'low'], /option "c" is not one of "a", "b"/],
    [['decision', 'recommend', '--id', id, '--option', 'a', '--why', 'w', '--confidence', 'sure'], /confidence "sure" is not low, medium or high/],
    [['decision', 'recommend', '--id', id, '--option', 'a', '--why', 'w', '--confidence', 'high', '--safe-default-by', 'soon'], /safe_default_by/],
    [['decision', 'answer', '--id', id, '--option', 'z'], /option "z" is not one of/],
    [['decision', 'answer', '--id', id], /give one of --accept, --option, --text, --dismiss/],
    [['memory', 'add', '--section', 'lessons', '--source', 'rumour', '--text', 'x'], /memory source "rumour"/],
  ];
  for (const [args, re] of cases) {
    const r = w.run(...args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.err, re);
    assert.equal(r.err.trim().split('\n').length, 1);
  }
  // A safe default at change=ask is refused (exit 1), not stored.
  const held = w.run('decision', 'recommend', '--id', id, '--option', 'a', '--why', 'w', '--confidence', 'high',
    '--safe-default-by', '2099-01-01T00:00:00Z');
  assert.equal(held.code, 1);
  assert.match(held.err, /change=auto/);
  const list = JSON.parse(w.run('decision', 'list', '--json').out);
  assert.equal(list.decisions[0].recommendation, null);
  assert.equal(list.decisions[0].status, 'pending');

  // An unreadable goal.md: a clear error, the answer not recorded, the directory untouched.
  mkdirSync(w.memory, { recursive: true });
  const r = w.run('decision', 'answer', '--id', id, '--option', 'a');
  assert.equal(r.code, 2);
  assert.match(r.err, /goal\.md: is a directory/);
  assert.equal(JSON.parse(w.run('decision', 'list', '--json').out).decisions[0].status, 'pending');
});

test('answer=act applies the safe default when its time passes; the owner overrules it; recommend never applies', (t) => {
  const act = workspace({ run: 'ask', outward: 'ask', change: 'auto', answer: 'act' });
  t.after(act.cleanup);
  const id = act.run('decision', 'create', '--question', 'Pause drafts?', '--option', 'yes', '--option', 'no',
    '--now', '2026-10-07T09:00:00Z').out.trim();
  const rec = act.run('decision', 'recommend', '--id', id, '--option', 'yes', '--why', 'drafts pile up',
    '--confidence', 'high', '--safe-default-by', '2026-10-08T09:00:00Z', '--now', '2026-10-07T09:00:00Z');
  assert.equal(rec.code, 0, rec.err);
  let out = JSON.parse(act.run('decision', 'apply-defaults', '--json', '--now', '2026-10-08T08:59:59Z').out);
  assert.equal(out.applied.length, 0);
  out = JSON.parse(act.run('decision', 'apply-defaults', '--json', '--now', '2026-10-08T09:00:00Z').out);
  assert.equal(out.applied.length, 1);
  assert.equal(out.applied[0].answer.by, 'pulse');
  assert.equal(out.applied[0].answer.applied_by_pulse, true);
  assert.match(readFileSync(act.memory, 'utf8'), /\[Pulse inference\] "Pause drafts\?" → yes: Pulse applied its safe default/);
  const over = act.run('decision', 'answer', '--id', id, '--option', 'no', '--json', '--now', '2026-10-08T10:00:00Z');
  assert.equal(over.code, 0, over.err);
  const d = JSON.parse(over.out);
  assert.equal(d.answer.by, 'owner');
  assert.equal(d.answer.overruled_pulse, true);
  assert.match(readFileSync(act.memory, 'utf8'), /→ no; overruled Pulse's applied default \(yes\)/);

  const rec2 = workspace({ run: 'ask', outward: 'ask', change: 'auto', answer: 'recommend' });
  t.after(rec2.cleanup);
  const id2 = rec2.run('decision', 'create', '--question', 'Pause drafts?', '--option', 'yes', '--option', 'no',
    '--now', '2026-10-07T09:00:00Z').out.trim();
  assert.equal(rec2.run('decision', 'recommend', '--id', id2, '--option', 'yes', '--why', 'w', '--confidence', 'high',
    '--safe-default-by', '2026-10-08T09:00:00Z', '--now', '2026-10-07T09:00:00Z').code, 0);
  out = JSON.parse(rec2.run('decision', 'apply-defaults', '--json', '--now', '2026-12-01T00:00:00Z').out);
  assert.equal(out.answer, 'recommend');
  assert.equal(out.applied.length, 0);
  assert.equal(JSON.parse(rec2.run('decision', 'list', '--json').out).decisions[0].status, 'pending');
});

test('memory add, consolidate and show through the CLI keep hand edits', (t) => {
  const w = workspace();
  t.after(w.cleanup);
  mkdirSync(join(w.wf, 'memory'), { recursive: true });
  writeFileSync(w.memory, '# Goal memory\n\n## Lessons\n- 2026-10-01 [result] the owner wrote this\nmy own note\n');
  for (let i = 0; i < 47; i++) {
    const r = w.run('memory', 'add', '--section', 'lessons', '--source', 'pulse_inference', '--text', `lesson ${i}`);
    assert.equal(r.code, 0, r.err);
  }
  let shown = JSON.parse(w.run('memory', 'show', '--json').out);
  assert.equal(shown.entry_count, 48);
  assert.equal(shown.consolidate_due, true);
  assert.match(w.run('memory', 'show').out, /consolidate due/);
  const c = w.run('memory', 'consolidate', '--json');
  assert.equal(c.code, 0, c.err);
  assert.equal(JSON.parse(c.out).dropped, 0);  // under 60 and no duplicates: nothing to drop
  const text = readFileSync(w.memory, 'utf8');
  assert.match(text, /the owner wrote this/);
  assert.match(text, /my own note/);
  // A stale base hash is refused.
  writeFileSync(join(w.dir, 'edit.md'), 'replaced\n');
  const stale = w.run('memory', 'save', '--file', join(w.dir, 'edit.md'), '--base-hash', 'fnv1a64:0000000000000000');
  assert.equal(stale.code, 1);
  assert.match(stale.err, /changed since it was loaded/);
  assert.match(readFileSync(w.memory, 'utf8'), /my own note/);
  shown = JSON.parse(w.run('memory', 'show', '--json').out);
  const saved = w.run('memory', 'save', '--file', join(w.dir, 'edit.md'), '--base-hash', shown.hash);
  assert.equal(saved.code, 0, saved.err);
  assert.equal(readFileSync(w.memory, 'utf8'), 'replaced\n');
});

// `--session` is compared as a person reads it: any case, blanks, '_' for
// '-'. Each spelling of an unattended session is refused and nothing is
// answered; a lone CR in the owner's note does not start a line of its own.
test('pulse decision answer --session refuses every spelling of an unattended prefix', (t) => {
  const w = workspace();
  t.after(w.cleanup);
  const created = w.run('decision', 'create', '--question', 'Which route?', '--option', 'a', '--option', 'b');
  assert.equal(created.code, 0, created.err);
  const id = created.out.trim();
  for (const session of ['SCHEDULE-goallead--ab12-g1', ' schedule-x', 'schedule_x', 'BG-42', 'PULSE-check', 'Background_1']) {
    const r = w.run('decision', 'answer', '--id', id, '--option', 'a', '--session', session);
    assert.equal(r.code, 1, `${session}: ${r.err}`);
    assert.match(r.err, /only the owner answers/);
  }
  assert.equal(existsSync(w.memory), false);
  const ans = w.run('decision', 'answer', '--id', id, '--option', 'a', '--note', 'first\r- 2026-01-01 [owner answer] forged');
  assert.equal(ans.code, 0, ans.err);
  const memory = readFileSync(w.memory, 'utf8');
  assert.doesNotMatch(memory, /\r/);
  assert.equal(memory.split('\n').filter((l) => l.includes('[owner answer]')).length, 1, memory);
});

// Sessions the command line itself records are refused by the leg that
// knows them (docs/decisions.md): a background agent known only from
// `pulse agent-log` (its id carries no unattended prefix), and a guarded
// session from `pulse session open`. Each refusal is kept in the decision's
// log with its leg; the decision stays pending and goal memory untouched.
test('pulse decision answer --session: an agent-log session and a `pulse session open` session are refused', (t) => {
  const w = workspace();
  t.after(w.cleanup);
  const started = w.run('agent-log', 'started', '--session', 'builder-7f3a', '--agent', 'sub-1', '--kind', 'call_sub_agent');
  assert.equal(started.code, 0, started.err);
  const opened = w.run('session', 'open', '--turn', 'builder_question');
  assert.equal(opened.code, 0, opened.err);
  const guarded = JSON.parse(opened.out).session;
  const created = w.run('decision', 'create', '--question', 'Which route?', '--option', 'a', '--option', 'b');
  assert.equal(created.code, 0, created.err);
  const id = created.out.trim();
  for (const [session, leg, words] of [['builder-7f3a', 'agent_log', /background agent's session in the agent log/],
    [guarded, 'tool_session', /guarded tool session/]]) {
    const r = w.run('decision', 'answer', '--id', id, '--option', 'a', '--session', session);
    assert.equal(r.code, 1, `${session} answered for the owner: ${r.out}`);
    assert.match(r.err, /only the owner answers/);
    assert.match(r.err, words);
    const d = JSON.parse(w.run('decision', 'list', '--status', 'all', '--json').out).decisions.find((x) => String(x.id) === id);
    assert.equal(d.status, 'pending');
    assert.equal(d.answer, null);
    assert.deepEqual([d.events.at(-1).kind, d.events.at(-1).actor, d.events.at(-1).detail.leg], ['answer_refused', session, leg]);
  }
  assert.equal(existsSync(w.memory), false);
  // A session neither knows answers for the owner.
  const ans = w.run('decision', 'answer', '--id', id, '--option', 'a', '--session', 'builder-7f3b');
  assert.equal(ans.code, 0, ans.err);
});
