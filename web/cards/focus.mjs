// The focus areas under the goal status card: Pulse's proposals for the
// owner to confirm or reject, the active areas (extend, drop) with their
// latest tracking line, the owner's own additions, and the closed ones with
// their lessons. The areas live in workflow.json; a local copy shows them
// from the database's snapshot and cannot change them.
import { html } from 'htm/preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Card } from './card.mjs';

const STATUS_WORDS = {
  proposed: 'proposed by Pulse', active: 'active', done: 'done', expired: 'expired', dropped: 'dropped',
};

function ExtendForm({ area, busy, onChange, onCancel }) {
  const [date, setDate] = useState(area.end_date || '');
  const first = useRef(null);
  useLayoutEffect(() => { if (first.current) first.current.focus(); }, []);
  return html`<form class="row focus-extend" onSubmit=${(e) => { e.preventDefault(); onChange({ action: 'extend', id: area.id, end_date: date }); }}
    onKeyDown=${(e) => { if (e.key === 'Escape') { e.preventDefault(); onCancel(); } }}>
    <label class="field">New end date<input type="date" ref=${first} value=${date} required onInput=${(e) => setDate(e.target.value)} /></label>
    <button type="submit" class="primary" disabled=${busy}>Extend</button>
    <button type="button" onClick=${onCancel}>Cancel</button>
  </form>`;
}

function OpenArea({ area, busy, readOnly, onChange }) {
  const [extending, setExtending] = useState(false);
  const opener = useRef(null);
  // Cancel or Escape: the focus goes back to Extend….
  const cancel = () => { setExtending(false); requestAnimationFrame(() => opener.current && opener.current.focus()); };
  const last = Array.isArray(area.tracking) && area.tracking.length ? area.tracking[area.tracking.length - 1] : null;
  const act = (action) => onChange({ action, id: area.id });
  return html`<li class=${`focus-area focus-${area.status}`} data-id=${area.id}>
    <p class="focus-title"><strong>${area.title}</strong> <span class=${`tag focus-tag-${area.status}`}>${STATUS_WORDS[area.status] || area.status}</span></p>
    <p class="meta">
      ${area.end_date ? html`<span>until ${area.end_date}</span>` : html`<span>no end date</span>`}
      ${area.check ? html`<span>check: ${area.check}</span>` : null}
      <span class="muted">${area.id}</span>
    </p>
    ${last ? html`<p class="focus-track">${last.date}: ${last.note}</p>` : null}
    ${readOnly ? null : extending
      ? html`<${ExtendForm} area=${area} busy=${busy} onCancel=${cancel}
          onChange=${(c) => { setExtending(false); onChange(c); }} />`
      : html`<div class="row">
        ${area.status === 'proposed'
          ? html`<button type="button" class="primary" disabled=${busy} onClick=${() => act('confirm')}>Confirm<span class="sr-only">: ${area.title}</span></button>
            <button type="button" disabled=${busy} onClick=${() => act('reject')}>Reject<span class="sr-only">: ${area.title}</span></button>`
          : html`<button type="button" ref=${opener} disabled=${busy} onClick=${() => setExtending(true)}>Extend…</button>
            <button type="button" disabled=${busy} onClick=${() => act('drop')}>Drop<span class="sr-only">: ${area.title}</span></button>`}
      </div>`}
  </li>`;
}

function AddForm({ busy, onChange }) {
  const [title, setTitle] = useState('');
  const [date, setDate] = useState('');
  const [check, setCheck] = useState('');
  const submit = async (e) => {
    e.preventDefault();
    const change = { action: 'add', title };
    if (date) change.end_date = date;
    if (check) change.check = check;
    if (await onChange(change)) { setTitle(''); setDate(''); setCheck(''); }
  };
  return html`<form class="focus-add" onSubmit=${submit}>
    <label class="field">Focus on<input type="text" value=${title} required maxlength="200" onInput=${(e) => setTitle(e.target.value)} /></label>
    <label class="field">Until<input type="date" value=${date} onInput=${(e) => setDate(e.target.value)} /></label>
    <label class="field">Check<input type="text" value=${check} placeholder="how you will tell it worked" onInput=${(e) => setCheck(e.target.value)} /></label>
    <button type="submit" disabled=${busy}>Add focus area</button>
  </form>`;
}

export function FocusAreasCard({ fold, doc, onChange, busy, readOnly, error }) {
  const areas = doc && Array.isArray(doc.focus_areas) ? doc.focus_areas : [];
  const open = areas.filter((a) => a.status === 'proposed' || a.status === 'active');
  const closed = areas.filter((a) => !(a.status === 'proposed' || a.status === 'active'));
  const max = (doc && doc.max_open) || 3;
  return html`<${Card} fold=${fold} id="focus-areas" title="Focus areas" subtitle=${`${open.length} of ${max} open`}>
    ${error ? html`<p class="card-error" role="alert">${error}</p>` : null}
    ${readOnly ? html`<p class="muted">${readOnly}</p>` : null}
    ${open.length === 0 ? html`<p class="muted">No open focus area. Pulse proposes one when time-boxed direction helps the goal.</p>`
      : html`<ul class="focus-list">${open.map((a) => html`<${OpenArea} key=${a.id} area=${a} busy=${busy} readOnly=${!!readOnly} onChange=${onChange} />`)}</ul>`}
    ${!readOnly && open.length < max ? html`<${AddForm} busy=${busy} onChange=${onChange} />` : null}
    ${closed.length ? html`<details class="focus-closed"><summary>${closed.length} closed</summary><ul>
      ${closed.map((a) => html`<li data-id=${a.id}><strong>${a.title}</strong> <span class="tag">${STATUS_WORDS[a.status] || a.status}</span>
        ${a.lesson ? html` — lesson: ${a.lesson}` : null}</li>`)}
    </ul></details>` : null}
  <//>`;
}
