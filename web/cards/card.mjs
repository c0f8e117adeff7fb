// The frame every card shares, and the two states a card shows before its
// document is there (loading) or when it could not be read (error).
import { html } from 'htm/preact';

export function Card({ id, title, subtitle, children, actions }) {
  return html`<section class="card" id=${id} aria-labelledby=${`${id}-title`}>
    <header class="card-head">
      <h2 id=${`${id}-title`}>${title}</h2>
      ${subtitle ? html`<span class="card-sub">${subtitle}</span>` : null}
      ${actions ? html`<div class="card-actions">${actions}</div>` : null}
    </header>
    ${children}
  </section>`;
}

// A card whose document could not be read: the error in one line.
export function CardError({ id, title, error }) {
  const missing = /unknown method "([^"]+)"/.exec(error || '');
  return html`<${Card} id=${id} title=${title}>
    ${missing
      ? html`<p class="muted">Not available: this Pulse core has no <code>${missing[1]}</code> method.</p>`
      : html`<p class="card-error" role="alert">${error}</p>`}
  <//>`;
}

export function CardLoading({ id, title }) {
  return html`<${Card} id=${id} title=${title}><p class="muted">Loading…</p><//>`;
}

export function optionLabel(o) {
  if (o === null || o === undefined) return '';
  if (typeof o === 'string') return o;
  return o.label || o.text || o.name || o.id || JSON.stringify(o);
}

export function optionValue(o) {
  if (typeof o === 'string') return o;
  return o && (o.id || o.value || o.label || o.text || o.name);
}
