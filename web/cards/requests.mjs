// What Pulse asked to have done (request.list): the QA checks it requested
// (record_pulse_qa_request), waiting for a QA fix run or answered by one, and
// its requests for an earlier full pass (record_pulse_fast_request), waiting
// or taken by the pass scheduler. The owner reads them; nothing to act on.
import { html } from 'htm/preact';
import { Card, EmptyState, plural } from './card.mjs';
import { formatTime } from '../format.mjs';

const STATUS_WORDS = { pending: 'waiting', taken: 'taken by a pass', done: 'done' };

function Request({ r, nowMs }) {
  return html`<li class=${`request request-${r.status}`} data-id=${r.id}>
    <p><strong>${r.what}</strong> <span class="tag">${STATUS_WORDS[r.status] || r.status}</span></p>
    <p class="meta"><span>${formatTime(r.created_at, nowMs)}</span>${r.session ? html`<span class="muted">${r.session}</span>` : null}
      ${r.taken_at ? html`<span>taken ${formatTime(r.taken_at, nowMs)}</span>` : null}</p>
    ${r.why ? html`<p class="muted">why: ${r.why}</p>` : null}
    ${r.result ? html`<p class="request-result">result: ${r.result}</p>` : null}
  </li>`;
}

export function RequestsCard({ fold, doc, nowMs }) {
  const all = doc && Array.isArray(doc.requests) ? doc.requests : [];
  const qa = all.filter((r) => r.kind === 'qa');
  const fast = all.filter((r) => r.kind === 'fast');
  const waiting = [...qa, ...fast].filter((r) => r.status === 'pending').length;
  return html`<${Card} fold=${fold} id="requests" title="Pulse's requests" subtitle=${`${plural(waiting, 'request')} waiting`}>
    <h3>QA checks</h3>
    ${qa.length ? html`<ul class="request-list qa-requests">${qa.map((r) => html`<${Request} key=${r.id} r=${r} nowMs=${nowMs} />`)}</ul>`
      : html`<${EmptyState}>Pulse has not asked for a QA check.<//>`}
    <h3>Earlier passes</h3>
    ${fast.length ? html`<ul class="request-list fast-requests">${fast.map((r) => html`<${Request} key=${r.id} r=${r} nowMs=${nowMs} />`)}</ul>`
      : html`<${EmptyState}>Pulse has not asked for an earlier full pass.<//>`}
  <//>`;
}
