// The Pulse chat view rendered in Node from conversation.show's shape: who
// spoke, the owner's own words without the turn's instructions, Pulse's
// reply, ask threads folded into one block with the last decision (grouped
// by thread_id, in the order of their first round), failed turns with their
// reason, and the generation picker that reads an older generation on demand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { render } from 'preact-render-to-string';
import { html } from 'htm/preact';
import { PulseChatCard, TalkToPulseCard } from '../../web/cards/conversation.mjs';
import {
  groupConversationTurns, lastDecision, spokenText, instructionText, callerWords, threadTitle,
} from '../../web/data/conversation.mjs';

const turn = (id, over) => ({ id, generation: 3, at: '2026-10-07T09:00:00Z', turn: 'goal_check', caller: 'tick', text: 'PULSE TURN goal_check (tick)\nThis is the daily goal check.', reply: 'on track', state: 'completed', ...over });

const TURNS = [
  turn(1, { turn: 'generation', caller: 'platform', text: 'Generation 3 begins (… ended after 90 turns); goal memory carries what matters.', reply: '' }),
  turn(2, { turn: 'charter', caller: 'platform', text: 'You are Pulse, the goal owner of workflow "substack".', reply: '' }),
  turn(3),
  turn(4, { turn: 'ask_pulse', caller: 'builder', account: 'ana', thread_id: 'th-1', round: 1, text: 'PULSE TURN ask_pulse\nDay 1 or day 3?', reply: 'question: how many opened day 1?\nowner_needed: no' }),
  turn(5, { turn: 'ask_pulse', caller: 'owner', account: 'ana', text: 'PULSE TURN ask_pulse (owner)\nThe owner wrote to you: rules.\n\nThe owner wrote:\nFocus on referrals\nthis month.', reply: 'Proposed a focus area.' }),
  turn(6, { turn: 'ask_pulse', caller: 'builder', account: 'ana', thread_id: 'th-1', round: 2, text: 'PULSE TURN ask_pulse\n62 of 100.', reply: 'decision: day 1\nowner_needed: no' }),
  turn(7, { turn: 'goal_work', caller: 'tick', state: 'failed', reply: '', error: 'runner exited with status 3: boom' }),
  turn(8, { turn: 'ask_pulse', caller: 'run', thread_id: 'th-2', round: 1, state: 'running', reply: '' }),
];

test('ask threads fold into one block each, in the order of their first round, with the last decision', () => {
  const items = groupConversationTurns(TURNS);
  assert.deepEqual(items.map((i) => (i.kind === 'thread' ? `thread ${i.thread_id}` : i.turn.id)), [1, 2, 3, 'thread th-1', 5, 7, 'thread th-2']);
  const th1 = items[3];
  assert.deepEqual(th1.rounds.map((t) => t.round), [1, 2]);
  assert.equal(th1.decision, 'decision: day 1');
  assert.equal(threadTitle(th1), 'Builder ↔ Pulse: 2 rounds');
  assert.equal(threadTitle(items[6]), 'Run chat ↔ Pulse: 1 round');
  assert.equal(items[6].decision, 'still answering');
  assert.equal(lastDecision({ reply: 'question: which list?\nowner_needed: no', state: 'completed' }), 'question: which list?');
  assert.equal(lastDecision({ reply: 'Plain answer\nmore', state: 'completed' }), 'Plain answer');
  assert.deepEqual(groupConversationTurns([]), []);
});

test('who spoke and what they said, without the turn\'s instructions', () => {
  assert.equal(spokenText(TURNS[4]), 'Focus on referrals\nthis month.');
  assert.equal(instructionText(TURNS[4]), 'PULSE TURN ask_pulse (owner)\nThe owner wrote to you: rules.');
  assert.equal(spokenText(TURNS[2]), 'PULSE TURN goal_check (tick)');
  const ask = { text: 'PULSE TURN ask_pulse (round 2 of at most 6 of thread t)\nrules\n\nThe Builder chat wrote:\n62 of 100.' };
  assert.equal(spokenText(ask), '62 of 100.');
  assert.equal(instructionText(ask), 'PULSE TURN ask_pulse (round 2 of at most 6 of thread t)\nrules');
  assert.equal(spokenText({ text: 'x\n\nThe owner wrote in their Builder chat:\nyes, go ahead' }), 'yes, go ahead');
  assert.equal(callerWords(TURNS[4]), 'You (ana)');
  assert.equal(callerWords(TURNS[2]), 'Scheduler');
});

test('the chat card shows the generation, the turns, replies, failures and the folded threads', () => {
  const doc = {
    workflow: 'substack', exists: true, session_id: 'schedule-goallead--dc77e3afb5bbf2d7-g3', generation: 3, shown_generation: 3,
    generations: [1, 2, 3].map((g) => ({ generation: g, session_id: `schedule-goallead--dc77e3afb5bbf2d7-g${g}`, started_at: '2026-09-01T00:00:00Z', reason: g === 1 ? 'first turn' : '90 turns', turns: g === 3 ? 6 : 90 })),
    turns: TURNS, stopped: false, running: true,
  };
  const out = render(html`<${PulseChatCard} doc=${doc} source=${{ call: async () => doc }} />`);
  assert.match(out, /generation 3 of 3 · 6 turns · Pulse is answering/);
  assert.match(out, /schedule-goallead--dc77e3afb5bbf2d7-g3/);
  assert.match(out, /<option[^>]*value="1"[^>]*>\s*1 · from/);
  assert.match(out, /Builder ↔ Pulse: 2 rounds<\/strong> <span class="chat-decision">— decision: day 1/);
  assert.match(out, /Focus on referrals\nthis month\./);
  assert.match(out, /runner exited with status 3: boom/);
  assert.match(out, /chat-tag-failed/);
  assert.equal((out.match(/class="chat-thread"/g) || []).length, 2);
  const paged = render(html`<${PulseChatCard} doc=${{ ...doc, earlier_turns: 300 }} source=${{ call: async () => doc }} />`);
  assert.match(paged, /Show earlier \(300 more entries\)/);
  assert.doesNotMatch(out, /Show earlier/);
  const none = render(html`<${PulseChatCard} doc=${{ exists: false, has_goal: true }} />`);
  assert.match(none, /begins with the first goal check or when you talk to Pulse/);
});

test('the Talk box has its one line of help, and says why it cannot send', () => {
  const served = render(html`<${TalkToPulseCard} local=${false} canAct=${true} hasGoal=${true} onSend=${() => ''} />`);
  assert.match(served, /<p class="muted small" id="talk-help">Ask Pulse why, or give it direction.<\/p>/);
  assert.doesNotMatch(served, /<textarea[^>]*disabled/);
  assert.match(render(html`<${TalkToPulseCard} local=${false} canAct=${false} hasGoal=${true} />`), /needs the owner token/);
  assert.match(render(html`<${TalkToPulseCard} local=${true} canAct=${true} hasGoal=${true} />`), /talk to Pulse where it runs/);
  assert.match(render(html`<${TalkToPulseCard} local=${false} canAct=${true} hasGoal=${false} />`), /has no goal/);
});
