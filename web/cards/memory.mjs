// The goal memory card: memory/goal.md shown as text, editable by the owner.
import { html } from 'htm/preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Card, EmptyState, plural } from './card.mjs';

// ---------- goal memory ----------

export function GoalMemoryCard({ doc, onSave, readOnly, saving, error }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const [saved, setSaved] = useState(false);
  const area = useRef(null);
  useLayoutEffect(() => { if (editing && area.current) area.current.focus(); }, [editing]);
  const text = doc && typeof doc.text === 'string' ? doc.text : '';
  const start = () => { setDraft(text); setEditing(true); setSaved(false); };
  const save = async (e) => {
    e.preventDefault();
    const ok = await onSave(draft, doc);
    if (ok) { setEditing(false); setSaved(true); }
  };
  return html`<${Card} id="memory" title="Goal memory"
    subtitle=${doc && Array.isArray(doc.entries) ? plural(doc.entries.length, 'entry', 'entries') : ''}
    actions=${!editing && !readOnly ? html`<button type="button" onClick=${start}>Edit</button>` : null}>
    ${error ? html`<p class="card-error" role="alert">${error}</p>` : null}
    ${saved && !editing ? html`<p class="saved-note" role="status">Saved: the goal memory now reads as below.</p>` : null}
    ${editing
      ? html`<form class="memory-form" onSubmit=${save} onKeyDown=${(e) => { if (e.key === 'Escape') { e.preventDefault(); setEditing(false); } }}>
        <label class="sr-only" for="memory-text">Goal memory text</label>
        <textarea id="memory-text" ref=${area} rows="14" value=${draft} onInput=${(e) => setDraft(e.target.value)}></textarea>
        <div class="row">
          <button type="submit" class="primary" disabled=${saving}>Save</button>
          <button type="button" onClick=${() => setEditing(false)}>Cancel</button>
        </div>
      </form>`
      : text.trim() ? html`<div class="memory-text">${renderMemory(text)}</div>`
        : html`<${EmptyState}>The goal memory is empty: Pulse adds what it learns here, and you can too (Edit).<//>`}
  <//>`;
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
