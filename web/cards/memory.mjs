// The goal memory card: memory/goal.md shown as text, editable by the owner.
import { html } from 'htm/preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Card } from './card.mjs';

// ---------- goal memory ----------

export function GoalMemoryCard({ doc, onSave, readOnly, saving, error }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const area = useRef(null);
  useLayoutEffect(() => { if (editing && area.current) area.current.focus(); }, [editing]);
  const text = doc && typeof doc.text === 'string' ? doc.text : '';
  const start = () => { setDraft(text); setEditing(true); };
  const save = async (e) => {
    e.preventDefault();
    const ok = await onSave(draft, doc);
    if (ok) setEditing(false);
  };
  return html`<${Card} id="memory" title="Goal memory"
    subtitle=${doc && Array.isArray(doc.entries) ? `${doc.entries.length} entries` : ''}
    actions=${!editing && !readOnly ? html`<button type="button" onClick=${start}>Edit</button>` : null}>
    ${error ? html`<p class="card-error" role="alert">${error}</p>` : null}
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
        : html`<p class="muted">The goal memory is empty.</p>`}
  <//>`;
}

// Goal memory is Markdown written by Pulse and the owner; headings and
// bullets are shown as such, everything else as plain paragraphs (no HTML
// from the file is ever interpreted).
export function renderMemory(text) {
  const out = [];
  let list = null;
  const flush = () => { if (list) { out.push(html`<ul>${list}</ul>`); list = null; } };
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    const h = /^(#{1,4})\s+(.*)$/.exec(line);
    const b = /^\s*[-*]\s+(.*)$/.exec(line);
    if (h) { flush(); out.push(h[1].length <= 2 ? html`<h3>${h[2]}</h3>` : html`<h4>${h[2]}</h4>`); }
    else if (b) { (list = list || []).push(html`<li>${b[1]}</li>`); }
    else if (!line.trim()) flush();
    else { flush(); out.push(html`<p>${line}</p>`); }
  }
  flush();
  return out;
}
