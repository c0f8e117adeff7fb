// The served mode's side panel: the workflows of this `pulse serve` the
// overview has read, and the owner token the page sends with answers and
// memory edits.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { statusWord } from '../format.mjs';

function TokenForm({ token, tokenState, onToken }) {
  const [draft, setDraft] = useState('');
  if (token && tokenState !== 'refused') {
    return html`<p class=${tokenState === 'refused' ? 'card-error' : 'muted'}>${tokenState === 'refused'
          ? 'The server refused this token: paste the one pulse serve showed when it made it, or a new one from pulse token rotate.'
          : tokenState === 'ok' ? 'Accepted by the server. Answers and memory edits go to the server.' : 'Set in this browser.'}</p>
        <button type="button" onClick=${() => onToken('')}>Forget token</button>`;
  }
  const refused = token && tokenState === 'refused';
  return html`<form onSubmit=${(e) => { e.preventDefault(); onToken(draft); setDraft(''); }}>
        ${refused ? html`<p class="card-error" role="alert">The server refused the stored token. Paste the right one below (it replaces the refused one).</p>` : null}
        <p class="muted">Needed to answer decisions or edit memory: the token <code>pulse serve</code> showed once when it made it (<code>pulse token rotate --workspace DIR</code> prints a new one).</p>
        <label class="field">Token <input type="password" value=${draft} autocomplete="off" onInput=${(e) => setDraft(e.target.value)} /></label>
        <div class="row"><button type="submit">Use token</button>
        ${refused ? html`<button type="button" onClick=${() => onToken('')}>Forget token</button>` : null}</div>
      </form>`;
}

// While a workflow is open, the others the overview has read (a page or
// more of them), so a long workspace is never listed whole here; on the
// overview itself (rows null) the list is not repeated, only the token.
export function ServerPanel({ rows, total, error, openName, onOpen, token, tokenState, onToken }) {
  const list = rows || [];
  return html`<div class="panel server-panel">
    ${rows === null ? null : html`<h2 class="panel-title">Switch workflow</h2>
    ${error ? html`<p class="card-error" role="alert">${error}</p>` : null}
    ${list.length === 0 && !error ? html`<p class="muted">No workflows.</p>` : html`<ul class="copies">
      ${list.map((w) => html`<li class=${`copy ${w.name === openName ? 'open' : ''}`} data-name=${w.name}>
          <div class="copy-name">${w.name} ${w.status ? html`<span class="status-dot" data-status=${w.status}>${w.status === 'error' ? 'Cannot be read' : statusWord(w.status)}</span>` : null}</div>
          <div class="row"><button type="button" onClick=${() => onOpen(w.name)} aria-label=${`Open ${w.name}`}>Open</button></div>
        </li>`)}
    </ul>`}
    ${total > list.length ? html`<p class="muted">${(total - list.length).toLocaleString('en-GB')} more: <a href="#/server">filter or show more in the overview</a>.</p>` : null}`}
    <h2 class="panel-title">Owner token</h2>
    <${TokenForm} token=${token} tokenState=${tokenState} onToken=${onToken} />
  </div>`;
}
