// Pulse's conversation as the "Pulse chat" view shows it: the turns of one
// generation (conversation.show), in order, with every ask thread's rounds
// folded into one block ("Builder ↔ Pulse: N rounds" with the last
// decision). Pure: the same document from the server or from a local copy
// gives the same view.

const CALLER_WORDS = {
  platform: 'Platform', tick: 'Scheduler', owner: 'You', builder: 'Builder chat', run: 'Run chat', step: 'Step', bot: 'Bot',
};

const TURN_WORDS = {
  charter: 'Charter', generation: 'New generation', goal_check: 'Daily goal check', goal_work: 'Goal Work',
  ask_pulse: 'Message to Pulse', run_failed: 'Failed run', ask_builder: 'Pulse asked the Builder chat',
};

// Who spoke, in the owner's words ("You (ana)", "Builder chat (ana)").
export function callerWords(turn) {
  const who = CALLER_WORDS[turn.caller] || String(turn.caller || 'unknown');
  return turn.account ? `${who} (${turn.account})` : who;
}

export function turnWords(turn) {
  if (turn.turn === 'ask_pulse' && turn.caller !== 'owner') return 'Ask';
  return TURN_WORDS[turn.turn] || String(turn.turn || '').replace(/_/g, ' ');
}

// Where a turn's text hands over to the caller's own words: its last
// "\n\nThe owner wrote:\n" (or "The Builder chat wrote:", "The owner wrote in
// their Builder chat:").
const SPOKEN = /\n\n(The [^\n]{0,80}? wrote[^\n]{0,80}):\n/g;

function splitText(turn) {
  const text = String(turn.text || '');
  let at = -1;
  let len = 0;
  for (const m of text.matchAll(SPOKEN)) { at = m.index; len = m[0].length; }
  if (at >= 0) return { spoken: text.slice(at + len).trim(), rest: text.slice(0, at).trim() };
  const nl = text.indexOf('\n');
  return { spoken: nl < 0 ? text : text.slice(0, nl), rest: nl < 0 ? '' : text.slice(nl + 1).trim() };
}

// What the caller said, without the turn's instructions: the words after
// "… wrote:"; a turn without any (a goal check) shows its first line.
export function spokenText(turn) {
  return splitText(turn).spoken;
}

// The instructions a turn carried beyond what spokenText shows ('' when none).
export function instructionText(turn) {
  return splitText(turn).rest;
}

// The decision an ask round ended with: its "decision: …" line, else the
// question Pulse asked back ("question: …"), else the reply's first line.
export function lastDecision(turn) {
  const reply = String(turn.reply || '');
  const decision = /^\s*decision:\s*(.+)$/im.exec(reply);
  if (decision) return `decision: ${decision[1].trim()}`;
  const question = /^\s*question:\s*(.+)$/im.exec(reply);
  if (question) return `question: ${question[1].trim()}`;
  if (turn.state && turn.state !== 'completed') return turn.state === 'running' ? 'still answering' : turn.state;
  return reply.split('\n')[0] || 'no reply';
}

// [{kind: 'turn', turn} | {kind: 'thread', thread_id, rounds, caller, decision}]
// in the order of each item's first turn.
export function groupConversationTurns(turns) {
  const items = [];
  const threads = new Map();
  for (const t of turns || []) {
    if (!t.thread_id) {
      items.push({ kind: 'turn', turn: t });
      continue;
    }
    let block = threads.get(t.thread_id);
    if (!block) {
      block = { kind: 'thread', thread_id: t.thread_id, rounds: [] };
      threads.set(t.thread_id, block);
      items.push(block);
    }
    block.rounds.push(t);
  }
  for (const block of threads.values()) {
    block.rounds.sort((a, b) => (a.round || 0) - (b.round || 0) || a.id - b.id);
    const last = block.rounds[block.rounds.length - 1];
    block.caller = block.rounds[0].caller;
    block.decision = lastDecision(last);
  }
  return items;
}

// "Builder ↔ Pulse: 3 rounds"
export function threadTitle(block) {
  const who = block.caller === 'run' ? 'Run chat' : block.caller === 'step' ? 'Step' : block.caller === 'owner' ? 'You'
    : block.caller === 'bot' ? 'Bot' : 'Builder';
  const n = block.rounds.length;
  return `${who} ↔ Pulse: ${n} ${n === 1 ? 'round' : 'rounds'}`;
}
