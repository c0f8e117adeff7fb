// The served mode's side panel: the workflows of this `pulse serve` and the
// owner token the page sends with answers and memory edits.
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

export function ServerPanel({ workflows, error, openName, onOpen, token, tokenState, onToken }) {
  return html`<div class="panel server-panel">
    <h2 class="panel-title">Workflows on this server</h2>
    ${error ? html`<p class="card-error" role="alert">${error}</p>` : null}
    ${workflows.length === 0 && !error ? html`<p class="muted">No workflows.</p>` : html`<ul class="copies">
      ${workflows.map((w) => {
        const name = w.workflow || w.name;
        const status = (w.goal_status && w.goal_status.status) || w.status;
        return html`<li class=${`copy ${name === openName ? 'open' : ''}`} data-name=${name}>
          <div class="copy-name">${name} ${status ? html`<span class="status-dot" data-status=${status}>${statusWord(status)}</span>` : null}</div>
          <div class="row"><button type="button" onClick=${() => onOpen(name)} aria-label=${`Open ${name}`}>Open</button></div>
        </li>`;
      })}
    </ul>`}
    <h2 class="panel-title">Owner token</h2>
    <${TokenForm} token=${token} tokenState=${tokenState} onToken=${onToken} />
  </div>`;
}
