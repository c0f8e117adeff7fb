// Talking to Pulse and reading its conversation: the "Talk to Pulse" box
// (the owner's words go into the conversation as an owner relay turn that
// runs in the background) and the "Pulse chat" view (generations, turns,
// who spoke, Pulse's reply, ask threads folded into one block). The chat
// shows the current generation; older ones are read when asked for, so a
// long conversation opens with one generation's rows (its newest drawn).
import { html } from 'htm/preact';
import { useState, useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { Card, EmptyState, plural } from './card.mjs';
import { formatTime } from '../format.mjs';
import {
  callerWords, turnWords, spokenText, instructionText, groupConversationTurns, threadTitle,
} from '../data/conversation.mjs';

export function TalkToPulseCard({ fold, local, canAct, hasGoal, onSend }) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState('');
  const why = local ? 'This is a copy in your browser: talk to Pulse where it runs (pulse serve, or pulse talk).'
    : !hasGoal ? 'This workflow has no goal (goal.primary_metric), so it has no Pulse conversation.'
      : !canAct ? 'Talking to Pulse needs the owner token.' : '';
  const send = async (e) => {
    e.preventDefault();
    if (!text.trim()) return;
    setBusy(true);
    setNote('');
    try {
      setNote(await onSend(text.trim()));
      setText('');
    } catch (err) {
      setNote(`Not sent: ${err.message || err}`);
    } finally {
      setBusy(false);
    }
  };
  return html`<${Card} fold=${fold} id="talk-to-pulse" title="Talk to Pulse">
    <form class="talk-form" onSubmit=${send}>
      <label class="field" for="talk-text">Your message</label>
      <p class="muted small" id="talk-help">Ask Pulse why, or give it direction.</p>
      <textarea id="talk-text" rows="3" maxlength="20000" aria-describedby="talk-help" value=${text}
        disabled=${!!why || busy} onInput=${(e) => setText(e.target.value)}
        placeholder=${why ? '' : 'Why is the goal not measured? / This month, focus on the welcome email.'}></textarea>
      <div class="row">
        <button type="submit" class="primary" id="talk-send" disabled=${!!why || busy || !text.trim()}>${busy ? 'Sending…' : 'Send to Pulse'}</button>
      </div>
      ${why ? html`<p class="muted small">${why}</p>` : null}
      ${note ? html`<p class="notice-inline" role="status">${note}</p>` : null}
    </form>
  <//>`;
}

const STATE_WORDS = { running: 'answering…', failed: 'failed', interrupted: 'interrupted', stopped: 'stopped by you' };

function Turn({ t }) {
  const log = t.turn === 'charter' || t.turn === 'generation';
  const spoken = spokenText(t);
  const more = instructionText(t);
  return html`<li class=${`chat-turn chat-${t.caller}${log ? ' chat-log' : ''} chat-state-${t.state}`} data-id=${t.id} data-turn=${t.turn}>
    <p class="chat-head"><strong>${turnWords(t)}</strong><span class="muted"> · ${callerWords(t)} · ${formatTime(t.at)} UTC</span>
      ${t.state !== 'completed' ? html` <span class=${`tag chat-tag-${t.state}`}>${STATE_WORDS[t.state] || t.state}</span>` : null}</p>
    ${t.turn === 'charter'
      ? html`<details class="chat-more"><summary>The charter (the platform's; nobody edits it)</summary><div class="pre-text">${t.text}</div></details>`
      : html`<p class="chat-said">${spoken}</p>`}
    ${more && !log ? html`<details class="chat-more"><summary>The turn's instructions</summary><div class="pre-text">${more}</div></details>` : null}
    ${t.reply ? html`<div class="chat-reply"><span class="chat-who">Pulse</span><div class="pre-text">${t.reply}</div></div>` : null}
    ${t.error ? html`<p class="chat-error">${t.error}</p>` : null}
  </li>`;
}

function Thread({ block }) {
  return html`<li class="chat-thread" data-thread=${block.thread_id}>
    <details>
      <summary><strong>${threadTitle(block)}</strong> <span class="chat-decision">— ${block.decision}</span></summary>
      <ol class="chat-rounds">${block.rounds.map((t) => html`<${Turn} key=${t.id} t=${t} />`)}</ol>
    </details>
  </li>`;
}

function GenerationPicker({ doc, shown, onPick, busy }) {
  const gens = doc.generations || [];
  if (gens.length < 2) return null;
  return html`<label class="field chat-generation">Generation
    <select value=${shown} disabled=${busy} onChange=${(e) => onPick(Number(e.target.value))}>
      ${[...gens].reverse().map((g) => html`<option value=${g.generation}>
        ${g.generation}${g.generation === doc.generation ? ' (current)' : ''} · from ${formatTime(g.started_at)} · ${plural(g.turns, 'turn')}${g.reason ? ` · ${g.reason}` : ''}
      </option>`)}
    </select></label>`;
}

// The entries drawn at first, of the page read (the newest); "Show earlier"
// draws more of it before it reads another page: drawing 200 long turns was
// most of the time a long conversation took to open.
const DRAWN_AT_FIRST = 50;

export function PulseChatCard({ fold, doc, source, nowSeconds }) {
  const [older, setOlder] = useState(null);  // another generation's document, read on demand
  const [before, setBefore] = useState({ generation: 0, turns: [], left: 0 });  // earlier pages, read on demand
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [drawn, setDrawn] = useState(DRAWN_AT_FIRST);
  useEffect(() => { setOlder(null); }, [doc && doc.generation]);
  // For bench/conversation_open.mjs: the frame after the chat first shows.
  useLayoutEffect(() => {
    if (doc && doc.exists) requestAnimationFrame(() => performance.mark('pulse:chat-shown'));
  }, [!!(doc && doc.exists)]);
  const view = older && doc && older.shown_generation !== doc.generation ? older : doc;
  const page = view && view.turns ? view.turns : [];
  const extra = view && before.generation === view.shown_generation ? before : { turns: [], left: view ? view.earlier_turns || 0 : 0 };
  const loaded = [...extra.turns, ...page];
  const undrawn = Math.max(0, loaded.length - drawn);
  const turns = loaded.slice(undrawn);
  const earlier = undrawn + extra.left;
  // Like any chat, the newest turn is in view (the list scrolls inside the card).
  const listRef = useRef(null);
  const lastId = page.length ? page[page.length - 1].id : 0;
  useLayoutEffect(() => {
    if (listRef.current) listRef.current.scrollTop = listRef.current.scrollHeight;
  }, [lastId, view && view.shown_generation]);
  if (!doc || !doc.exists) {
    return html`<${Card} fold=${fold} id="pulse-chat" title="Pulse chat">
      <${EmptyState}>${doc && doc.has_goal === false ? 'This workflow has no goal, so Pulse keeps no conversation for it.'
        : 'Pulse has no conversation for this workflow yet: it begins with the first goal check or when you talk to Pulse.'}<//>
    <//>`;
  }
  const read = async (args, done) => {
    setError('');
    setBusy(true);
    try { done(await source.call('conversation.show', args, nowSeconds)); } catch (err) { setError(err.message || String(err)); } finally { setBusy(false); }
  };
  const pick = (n) => {
    setDrawn(DRAWN_AT_FIRST);
    return n === doc.generation ? setOlder(null) : read({ generation: n }, setOlder);
  };
  const showEarlier = () => {
    if (undrawn > 0) return setDrawn(drawn + DRAWN_AT_FIRST);
    return read({ generation: view.shown_generation, before: loaded[0].id }, (d) => {
      setBefore({ generation: view.shown_generation, turns: [...(d.turns || []), ...extra.turns], left: d.earlier_turns || 0 });
      setDrawn(drawn + Math.min((d.turns || []).length, DRAWN_AT_FIRST));
    });
  };
  const items = groupConversationTurns(turns);
  const gen = (doc.generations || []).find((g) => g.generation === view.shown_generation) || {};
  return html`<${Card} fold=${fold} id="pulse-chat" title="Pulse chat"
    subtitle=${`generation ${view.shown_generation} of ${(doc.generations || []).length} · ${plural(gen.turns || 0, 'turn')}${doc.running ? ' · Pulse is answering' : ''}`}>
    <p class="meta"><span>session <code>${gen.session_id || view.session_id}</code></span>
      ${view.shown_generation !== doc.generation ? html`<span class="tag">an earlier generation</span>` : null}
      ${doc.stopped ? html`<span class="tag">stopped: the next turn goes on</span>` : null}</p>
    <${GenerationPicker} doc=${doc} shown=${view.shown_generation} onPick=${pick} busy=${busy} />
    ${error ? html`<p class="card-error" role="alert">${error}</p>` : null}
    ${earlier > 0 && turns.length ? html`<p><button type="button" id="chat-earlier" disabled=${busy} onClick=${showEarlier}>Show earlier (${plural(earlier, 'more entry', 'more entries')})</button></p>` : null}
    <ol class="chat" aria-label="Pulse's conversation" ref=${listRef}>
      ${items.map((it) => (it.kind === 'thread' ? html`<${Thread} key=${`t-${it.thread_id}`} block=${it} />` : html`<${Turn} key=${it.turn.id} t=${it.turn} />`))}
    </ol>
  <//>`;
}
