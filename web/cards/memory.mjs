// The goal memory card: memory/goal.md shown as text, editable by the owner.
import { html } from 'htm/preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Card, EmptyState, plural } from './card.mjs';

// ---------- goal memory ----------

export function GoalMemoryCard({ fold, doc, onSave, readOnly, saving, error, conflict, onDropConflict }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const [saved, setSaved] = useState(false);
  const area = useRef(null);
  const editButton = useRef(null);
  const closed = useRef(false);
  useLayoutEffect(() => {
    if (editing && area.current) area.current.focus();
    // Cancel or Escape: the focus goes back to Edit.
    if (!editing && closed.current && editButton.current) { closed.current = false; editButton.current.focus(); }
  }, [editing]);
  const text = doc && typeof doc.text === 'string' ? doc.text : '';
  const start = () => { setDraft(text); setEditing(true); setSaved(false); };
  const cancel = () => { closed.current = true; setEditing(false); if (onDropConflict) onDropConflict(); };
  const save = async (e) => {
    e.preventDefault();
    const ok = await onSave(draft, doc);
    if (ok) { setEditing(false); setSaved(true); }
  };
  // Someone saved the memory since it was opened: the draft stays, the
  // memory as it is now is shown beside it, and the owner chooses.
  const reload = () => { setDraft(text); if (onDropConflict) onDropConflict(); };
  const entries = memoryEntries(doc, text);
  return html`<${Card} fold=${fold} id="memory" title="Goal memory"
    subtitle=${doc ? plural(entries, 'entry', 'entries') : ''}
    actions=${!editing && !readOnly ? html`<button type="button" ref=${editButton} onClick=${start}>Edit</button>` : null}>
    ${error && !conflict ? html`<p class="card-error" role="alert">${error}</p>` : null}
    ${saved && !editing ? html`<p class="saved-note" role="status">Saved: the goal memory now reads as below.</p>` : null}
    ${editing
      ? html`<form class="memory-form" onSubmit=${save} onKeyDown=${(e) => { if (e.key === 'Escape') { e.preventDefault(); cancel(); } }}>
        ${conflict ? html`<div class="memory-conflict" role="alert">
          <p><strong>Not saved: the goal memory changed since you opened it</strong> (Pulse or another tab saved it meanwhile).
            Your text is still below. Merge what you need from the memory as it is now, then save; or start again from it.</p>
          <details open><summary>The goal memory as it is now</summary><div class="pre-text memory-now">${text}</div></details>
          <div class="row"><button type="button" onClick=${reload}>Start again from the current memory</button></div>
        </div>` : null}
        <label class="sr-only" for="memory-text">Goal memory text</label>
        <textarea id="memory-text" ref=${area} rows="14" value=${draft} onInput=${(e) => setDraft(e.target.value)}></textarea>
        <div class="row">
          <button type="submit" class="primary" disabled=${saving}>${conflict ? 'Save mine over it' : 'Save'}</button>
          <button type="button" onClick=${cancel}>Cancel</button>
        </div>
      </form>`
      : text.trim() ? html`<div class="memory-text">${renderMemory(text)}</div>`
        : html`<${EmptyState}>The goal memory is empty: Pulse adds what it learns here, and you can too (Edit).<//>`}
  <//>`;
}

// The entries shown: the core's parsed entries, or (from an older core)
// the bullet lines of the text, so the count follows every save.
function memoryEntries(doc, text) {
  if (doc && Array.isArray(doc.entries)) return doc.entries.length;
  return text.split('\n').filter((l) => /^\s*[-*]\s+/.test(l)).length;
}

// Goal memory is Markdown written by Pulse and the owner; headings and
// bullets are shown as such, everything else as plain paragraphs (no HTML
// from the file is ever interpreted). The file's own title repeats the
// card's and is left out; its note on how entries are written is behind a
// disclosure; a section with no entry says so.
const FORMAT_NOTE = /^What Pulse and the owner have learned/;

// What each of Pulse's sections holds, said where a section is still empty.
const SECTION_USE = {
  'owner preferences and answers': 'your answers to Pulse\'s questions (Accept, Change…) are kept here.',
  'decisions and outcomes': 'what came of an answer (Record result in the decision log), and the safe defaults Pulse applied, are kept here.',
  lessons: 'the lesson of each closed focus area is kept here.',
  'open bets': 'what is being tried and not yet judged goes here (Edit to add one).',
  'waiting on the owner': 'what Pulse needs from you beyond the questions in Needs you goes here.',
};

function emptySectionText(title) {
  const use = SECTION_USE[String(title || '').trim().toLowerCase()];
  return use ? `Nothing here yet: ${use}` : 'Nothing here yet.';
}

export function renderMemory(text) {
  const out = [];
  let list = null;
  let section = null; // the current ## heading and the entries seen under it
  const flush = () => { if (list) { out.push(html`<ul>${list}</ul>`); list = null; } };
  const closeSection = () => {
    if (section && section.count === 0) out.push(html`<p class="muted empty-section">${emptySectionText(section.title)}</p>`);
  };
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    const h = /^(#{1,4})\s+(.*)$/.exec(line);
    const b = /^\s*[-*]\s+(.*)$/.exec(line);
    if (h && h[1].length === 1 && /^goal memory$/i.test(h[2].trim())) continue;
    if (h) {
      flush();
      if (h[1].length === 2) { closeSection(); section = { count: 0, title: h[2] }; }
      out.push(h[1].length <= 2 ? html`<h3>${h[2]}</h3>` : html`<h4>${h[2]}</h4>`);
    } else if (b) {
      if (section) section.count++;
      (list = list || []).push(html`<li>${b[1]}</li>`);
    } else if (!line.trim()) flush();
    else if (FORMAT_NOTE.test(line)) {
      flush();
      out.push(html`<details class="memory-help"><summary>How this memory is written</summary><p>${line}</p></details>`);
    } else {
      flush();
      if (section) section.count++;
      out.push(html`<p>${line}</p>`);
    }
  }
  flush();
  closeSection();
  return out;
}
