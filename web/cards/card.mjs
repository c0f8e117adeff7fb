// The frame every card shares, and the two states a card shows before its
// document is there (loading) or when it could not be read (error).
//
// Layout rules every card follows (styles.css keeps them): a card is a
// <section class="card"> with one <h2> title (never repeated inside the
// card); a card that has nothing to show says so with <EmptyState>, in a
// sentence that names what is missing and why; counts use plural(); wide
// tables are wrapped in <TableScroll> (they scroll sideways inside the card
// at any width) or get class "reflow" with a data-label on each cell (at
// phone width each row becomes a block of "label: value" lines). Cards
// stack in one column below 900 px.
import { html } from 'htm/preact';

// "1 row", "3 rows", "0 copies" (plural given when it is not word + s).
export function plural(n, word, many) {
  const count = Number(n) || 0;
  return `${count.toLocaleString('en-GB')} ${count === 1 ? word : (many || `${word}s`)}`;
}

// What a card shows when it has nothing to show.
export function EmptyState({ children }) {
  return html`<p class="empty-state muted">${children}</p>`;
}

// A wide table: scrolls sideways inside its card rather than the page.
export function TableScroll({ children, label }) {
  return html`<div class="table-scroll" role="region" aria-label=${label || 'table'} tabindex="0">${children}</div>`;
}

// `fold` ({open, toggle}): a card below "What needs you" shows its title and
// one-line summary until opened (its address opens it), so the page stays
// short; the toggle says which card it opens and whether it is open.
export function Card({ id, title, subtitle, children, actions, fold }) {
  const folded = !!fold && !fold.open;
  return html`<section class=${`card${fold ? ' foldable' : ''}${folded ? ' folded' : ''}`} id=${id} aria-labelledby=${`${id}-title`}>
    <header class="card-head">
      <h2 id=${`${id}-title`}>${title}</h2>
      ${subtitle ? html`<span class="card-sub">${subtitle}</span>` : null}
      ${actions && !folded ? html`<div class="card-actions">${actions}</div>` : null}
      ${fold ? html`<button type="button" class="fold-toggle" aria-expanded=${folded ? 'false' : 'true'} aria-controls=${`${id}-body`}
        onClick=${fold.toggle}>${folded ? 'Show' : 'Hide'}<span class="sr-only"> ${typeof title === 'string' ? title : ''}</span></button>` : null}
    </header>
    ${folded ? null : fold ? html`<div class="card-body" id=${`${id}-body`}>${children}</div>` : children}
  </section>`;
}

// A card whose document could not be read: the error in one line.
export function CardError({ id, title, error, fold }) {
  const missing = /unknown method "([^"]+)"/.exec(error || '');
  return html`<${Card} id=${id} title=${title} fold=${fold}>
    ${missing
      ? html`<p class="muted">Not available: this Pulse core has no <code>${missing[1]}</code> method.</p>`
      : html`<p class="card-error" role="alert">${error}</p>`}
  <//>`;
}

export function CardLoading({ id, title, fold }) {
  return html`<${Card} id=${id} title=${title} fold=${fold}><p class="muted">Loading…</p><//>`;
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
