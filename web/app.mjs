// The Pulse tab's shell: one page, two clearly labelled modes.
//  - Server: the workflows of the `pulse serve` that served this page, read
//    from its API; answers and memory edits go through the server with the
//    owner's token.
//  - Local copy: a workflow database imported into this browser (OPFS), opened
//    by the WASM core in a dedicated Worker; everything works offline and
//    actions change only the copy, which can be exported back to a file.
// Where the documents come from is web/data/; the cards and panels, the same
// in both modes, are web/cards/. This file holds the mode, the open workflow
// and the layout.
import { html, render } from 'htm/preact';
import { useState, useEffect, useRef } from 'preact/hooks';
import { Dashboard } from './cards/dashboard.mjs';
import { LocalPanel } from './cards/local-panel.mjs';
import { ServerPanel } from './cards/server-panel.mjs';
import { PreviewCard } from './cards/preview.mjs';
import { parseNowParam, isoSeconds } from './format.mjs';
import { takeTokenFromLocation } from './data/server-api.mjs';
import { localSource, serverSource } from './data/sources.mjs';
import { useLocalCopies, useServer } from './data/hooks.mjs';

const params = new URLSearchParams(location.search);
takeTokenFromLocation();

// The time the local mode evaluates at (?now=, or the clock), kept in the URL.
function useNow() {
  const initial = parseNowParam(params.get('now'));
  const [nowSeconds, setNowSeconds] = useState(initial.seconds);
  const [nowError, setNowError] = useState(initial.error);
  const onNow = (text) => {
    const parsed = parseNowParam(text);
    setNowError(parsed.error);
    if (parsed.error) return;
    setNowSeconds(parsed.seconds);
    const u = new URL(location.href);
    if (parsed.seconds === undefined) u.searchParams.delete('now'); else u.searchParams.set('now', isoSeconds(parsed.seconds));
    history.replaceState(null, '', u);
  };
  return { nowSeconds, nowError, onNow };
}

function NowSetting({ nowSeconds, nowError, onNow }) {
  const [draft, setDraft] = useState(nowSeconds !== undefined ? isoSeconds(nowSeconds) : '');
  return html`<form class="now-setting" onSubmit=${(e) => { e.preventDefault(); onNow(draft.trim()); }}>
    <label for="now-input">Evaluate at</label>
    <input id="now-input" type="text" placeholder="now (the clock)" value=${draft} size="21"
      onInput=${(e) => setDraft(e.target.value)} aria-describedby="now-help" />
    <button type="submit">Apply</button>
    <span id="now-help" class="sr-only">An RFC 3339 UTC time such as 2026-10-07T12:00:00Z; empty for the clock</span>
    ${nowError ? html`<span class="card-error">${nowError}</span>` : null}
  </form>`;
}

function TopBar({ mode, switchMode, serverUp, now, serverNow }) {
  const modeButton = (m, label, extra = {}) => html`<button type="button" aria-pressed=${mode === m}
    class=${mode === m ? 'active' : ''} ...${extra} onClick=${() => switchMode(m)}>${label}</button>`;
  return html`<header class="topbar">
      <div class="brand"><span class="logo" aria-hidden="true">◉</span> <h1>Pulse</h1></div>
      <nav class="mode-switch" aria-label="Mode">
        ${modeButton('server', 'Server', { disabled: !serverUp, title: serverUp ? '' : 'No pulse serve behind this page' })}
        ${modeButton('local', 'Local copy')}
      </nav>
      ${mode === 'local'
        ? html`<${NowSetting} nowSeconds=${now.nowSeconds} nowError=${now.nowError} onNow=${now.onNow} />`
        : html`<span class="now-setting">Server clock${serverNow !== undefined ? `: ${isoSeconds(serverNow)}` : ''}</span>`}
    </header>
    <div class=${`mode-banner banner-${mode}`} id="mode-banner">
      ${mode === 'server'
        ? html`<strong>Served by pulse serve</strong> — the server's workflows; answers and edits go through the server.`
        : html`<strong>Local copy, offline</strong> — computed in this browser by the WASM core; actions change only the copy in this browser (export it to keep them).`}
      ${mode === 'local' && now.nowSeconds !== undefined ? html` <span class="now-tag">Evaluated at ${isoSeconds(now.nowSeconds)}</span>` : null}
    </div>`;
}

function Sidebar({ mode, local, server, open, setOpen, setPreview, nowSeconds }) {
  if (mode !== 'local') {
    return html`<${ServerPanel} workflows=${server.workflows} error=${server.serverError}
      openName=${open && open.kind === 'server' ? open.name : ''}
      onOpen=${(name) => setOpen({ kind: 'server', name })}
      token=${server.token} tokenState=${server.tokenState} onToken=${server.onToken} />`;
  }
  const onDeleted = async (name) => {
    if (localStorage.getItem('pulse.lastCopy') === name) localStorage.removeItem('pulse.lastCopy');
    await local.refreshCopies();
    if (open && open.name === name) setOpen(null);
  };
  return html`<${LocalPanel} store=${local.store} storeError=${local.storeError} copies=${local.copies}
    openName=${open && open.kind === 'local' ? open.name : ''}
    onOpen=${(name) => setOpen({ kind: 'local', name })}
    onImported=${async (name) => { setOpen({ kind: 'local', name }); await local.refreshCopies(); }}
    onDeleted=${onDeleted} onVerified=${() => local.refreshCopies()} onPreview=${setPreview} nowSeconds=${nowSeconds} />`;
}

// The source of the open workflow, kept while the same workflow stays open,
// so the dashboard reloads only when it changes.
function useOpenSource(open, store, api) {
  const source = open && (open.kind === 'local' ? store && localSource(store, open.name) : serverSource(api, open.name));
  const ref = useRef({ key: '', source: null });
  const key = open ? `${open.kind}:${open.name}` : '';
  if (ref.current.key !== key || (source && !ref.current.source)) ref.current = { key, source };
  return { key, source: ref.current.source };
}

function App() {
  const now = useNow();
  const [mode, setMode] = useState(params.get('mode') === 'server' ? 'server' : 'local');
  const [open, setOpen] = useState(null); // {kind, name}
  const [dirty, setDirty] = useState({});
  // The goal check computed on a file being imported, shown until it is stored.
  const [preview, setPreview] = useState(null);
  const local = useLocalCopies((list) => {
    // ?copy=NAME, else the copy open when the page was last left.
    const want = params.get('copy') || localStorage.getItem('pulse.lastCopy');
    if (want && list.some((c) => c.name === want) && params.get('mode') !== 'server') setOpen({ kind: 'local', name: want });
  });
  const server = useServer(() => { if (!params.get('mode')) setMode('server'); });
  const switchMode = (m) => { setMode(m); setOpen(null); };
  useEffect(() => {
    if (open && open.kind === 'local') localStorage.setItem('pulse.lastCopy', open.name);
  }, [open && open.kind, open && open.name]);

  const { key, source } = useOpenSource(open, local.store, server.api);
  const readOnly = open && open.kind === 'server' && (!server.token || server.tokenState === 'refused')
    ? 'Read only: paste the owner token (left) to answer or edit.' : '';
  // The server computes at its own clock; the page shows its times against it.
  const shownNow = mode === 'server' ? server.serverNow : now.nowSeconds;
  const onChanged = () => { if (open.kind === 'local') { setDirty((d) => ({ ...d, [key]: true })); local.refreshCopies(); } };

  return html`<div class=${`app mode-${mode}`}>
    <${TopBar} mode=${mode} switchMode=${switchMode} serverUp=${server.serverUp} now=${now} serverNow=${server.serverNow} />
    <div class="layout">
      <aside class="sidebar">
        <${Sidebar} mode=${mode} local=${local} server=${server} open=${open} setOpen=${setOpen}
          setPreview=${setPreview} nowSeconds=${now.nowSeconds} />
      </aside>
      <main class="main" id="main">
        ${preview && preview.check
          ? html`<${PreviewCard} preview=${preview} nowSeconds=${now.nowSeconds} />`
          : source
          ? html`<div class="open-title"><h2>${open.name}</h2>
              <span class="muted">${open.kind === 'local' ? 'local copy' : 'on the server'}${dirty[key] ? ' · changed in this browser — export to keep' : ''}</span></div>
            <${Dashboard} key=${key + (shownNow || '')} source=${source} nowSeconds=${shownNow}
              readOnly=${readOnly} onChanged=${onChanged} />`
          : html`<div class="empty">
              <h2>No workflow open</h2>
              <p>${mode === 'local' ? 'Import a workflow database copy, or open one from the list.' : 'Open a workflow from the list.'}</p>
            </div>`}
      </main>
    </div>
  </div>`;
}

const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);

// Offline: a service worker keeps the page's assets (see sw.js). Not in the
// way when unavailable (file://, some private modes).
if ('serviceWorker' in navigator && location.protocol.startsWith('http') && !params.has('nosw')) {
  navigator.serviceWorker.register(new URL('./sw.js', import.meta.url), { scope: './' }).catch(() => {});
}
