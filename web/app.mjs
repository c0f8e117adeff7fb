// The Pulse tab's shell: one page, two clearly labelled modes.
//  - Server: the workflows of the `pulse serve` that served this page, read
//    from its API; answers and memory edits go through the server with the
//    owner's token.
//  - Local copy: a workflow database imported into this browser (OPFS), opened
//    by the WASM core in a dedicated Worker; everything works offline and
//    actions change only the copy, which can be exported back to a file.
// Where the documents come from is web/data/; the cards and panels, the same
// in both modes, are web/cards/. This file holds the address (data/route.mjs:
// which mode, which workflow, which view), the clock and the layout.
import { html, render } from 'htm/preact';
import { useState, useEffect, useRef } from 'preact/hooks';
import { Dashboard, NoSuchWorkflow } from './cards/dashboard.mjs';
import { LocalPanel } from './cards/local-panel.mjs';
import { ServerPanel } from './cards/server-panel.mjs';
import { PreviewCard } from './cards/preview.mjs';
import { OverviewCard } from './cards/overview.mjs';
import { parseNowParam, isoSeconds, formatTime } from './format.mjs';
import { takeTokenFromLocation } from './data/server-api.mjs';
import { localSource, serverSource } from './data/sources.mjs';
import { useLocalCopies, useServer, useOverviewPages } from './data/hooks.mjs';
import { parseRoute, routeHash, routeFromQuery, routeTitle } from './data/route.mjs';
import { InspectPane } from './inspect/pane.mjs';

const params = new URLSearchParams(location.search);
takeTokenFromLocation();
// Links made before the tab had addresses (?copy=, ?mode=) become one.
if (!location.hash || location.hash === '#') {
  const legacy = routeFromQuery(params);
  if (legacy) history.replaceState(null, '', location.pathname + location.search + legacy);
}

// The address, followed through back/forward.
function useRoute() {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  const go = (r) => { const h = routeHash(r); if (location.hash !== h) location.hash = h; else setRoute(parseRoute(h)); };
  return { route, go };
}

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
  useEffect(() => setDraft(nowSeconds !== undefined ? isoSeconds(nowSeconds) : ''), [nowSeconds]);
  return html`<form class="now-setting" onSubmit=${(e) => { e.preventDefault(); onNow(draft.trim()); }}>
    <label for="now-input">Evaluate at</label>
    <input id="now-input" type="text" placeholder="now (this browser's clock)" value=${draft} size="21"
      onInput=${(e) => setDraft(e.target.value)} aria-describedby="now-help" />
    <button type="submit">Apply</button>
    <span id="now-help" class="sr-only">An RFC 3339 UTC time such as 2026-10-07T12:00:00Z; empty for this browser's clock</span>
    ${nowError ? html`<span class="card-error">${nowError}</span>` : null}
  </form>`;
}

// A preset program (--runner/--builder claude|codex) as the banner says it:
// its name, or the one line saying it is not installed.
function ProgramLine({ p, role }) {
  if (!p.found) return html` <span class="card-error">${p.error}</span>`;
  const unset = p.key === 'unset' ? html` (<code>${(p.key_env || []).join(' / ')}</code> not set)` : null;
  return html` ${role} <strong>${p.title}</strong>${p.model ? html` (<code>${p.model}</code>)` : null}${unset}.`;
}

// Who thinks for Pulse's turns on this server: a model (named, with whether
// its key is set: never the key), a preset program (Claude Code, Codex), an
// external runner, or the built-in rules; and a preset Builder chat.
function ThinksWith({ t }) {
  if (!t) return null;
  let who;
  if (t.thinks_with === 'program' && t.program) {
    who = html`<${ProgramLine} p=${t.program} role="Pulse thinks with" />`;
  } else if (t.thinks_with === 'model' && t.model) {
    const m = t.model;
    const unset = m.key === 'unset' ? html` (<code>${m.key_env}</code> is not set)` : null;
    who = html` Pulse thinks with <strong>${m.provider}:${m.name}</strong> at <code>${m.url}</code>${unset}.`;
  } else if (t.thinks_with === 'runner') {
    who = html` Pulse's turns run an external runner.`;
  } else {
    // With no model and no Builder command at all, the banner says what that
    // means before anyone acts, and links the page that connects one.
    who = t.has_builder
      ? html` Pulse's turns use the built-in rules runner (no model; <code>--model</code> or <code>PULSE_MODEL</code> names one).`
      : html` <span id="connected-note" class="connected-note">No model and no Builder command are set: Pulse's turns use the built-in
        rules runner, and an accepted fix waits in the outbox.${' '}<a href="/docs/models.md">How to connect one (docs/models.md)</a>.</span>`;
  }
  const builder = t.builder ? html`<${ProgramLine} p=${t.builder} role="The Builder chat is" />` : null;
  return html`<span id="thinks-with" class="thinks-with">${who}${builder}</span>`;
}

function TopBar({ mode, switchMode, serverUp, now, serverNow, importing, thinksWith }) {
  const modeButton = (m, label, extra = {}) => html`<button type="button" aria-pressed=${mode === m}
    class=${mode === m ? 'active' : ''} ...${extra} onClick=${() => switchMode(m)}>${label}</button>`;
  return html`<header class="topbar">
      <div class="brand"><span class="logo" aria-hidden="true">◉</span> <h1><a href="#/">Pulse</a></h1></div>
      <nav class="mode-switch" aria-label="Mode">
        ${modeButton('server', 'Server', { disabled: !serverUp, title: serverUp ? '' : 'No pulse serve behind this page' })}
        ${modeButton('local', 'Local copy')}
      </nav>
      ${mode === 'local'
        ? html`<${NowSetting} nowSeconds=${now.nowSeconds} nowError=${now.nowError} onNow=${now.onNow} />`
        : html`<span class="now-setting" id="server-clock">Server clock${serverNow !== undefined ? html`: <time datetime=${isoSeconds(serverNow)}>${formatTime(serverNow * 1000)} UTC</time>` : ''}</span>`}
    </header>
    <div class=${`mode-banner banner-${mode}`} id="mode-banner" data-mode=${mode}>
      ${mode === 'server'
        ? html`<strong>Served by pulse serve</strong> — the server's workflows, computed on the server's clock; answers and edits go through the server.<${ThinksWith} t=${thinksWith} />
          ${importing > 0 ? html`<span id="importing-note" class="importing-note"> Bringing in the run history (<code>schedule-runs.json</code>)
            of ${importing === 1 ? '1 workflow' : `${importing} workflows`}, a batch each tick; a workflow's goal check waits until its history is in.</span>` : null}`
        : html`<strong>Local copy, offline</strong> — computed in this browser by the WASM core; actions change only the copy in this browser (export it to keep them).`}
    </div>`;
}

// A time as the cards write it ("7 Oct 2026 12:00 UTC"), its RFC 3339 form
// in datetime= for machines.
function When({ s }) {
  return html`<time datetime=${isoSeconds(s)}>${formatTime(s * 1000, 0)} UTC</time>`;
}

// Which clock the cards are on, and "as of the last recorded check": the
// time the workflow's own goal check last ran and stored what it found.
function ClockLine({ source, mode, nowSeconds, serverNow, onNow }) {
  const [last, setLast] = useState(null);
  useEffect(() => {
    let live = true;
    source.call('goal.last_check', {}, nowSeconds).then((d) => live && setLast(d)).catch(() => live && setLast(null));
    return () => { live = false; };
  }, [source, nowSeconds]);
  const lastAt = last && last.checked_at;
  const clock = mode === 'server'
    ? html`On the server's clock${serverNow !== undefined ? html` (<${When} s=${serverNow} />)` : null}.`
    : nowSeconds !== undefined
      ? html`At a set time, <${When} s=${nowSeconds} /> (not this browser's clock).`
      : html`On this browser's clock (<${When} s=${Math.floor(Date.now() / 1000)} />).`;
  const atLast = mode === 'local' && lastAt && parseNowParam(lastAt).seconds === nowSeconds;
  return html`<p class="clock-line" id="clock-line">
    <span class="clock-what">${clock}</span>
    ${lastAt ? html` <span>Last recorded check: ${formatTime(lastAt)} UTC${last.status ? ` (${String(last.status).replace(/_/g, ' ')})` : ''}.</span>`
      : html` <span class="muted">No recorded check in this database.</span>`}
    ${mode === 'local' && lastAt && !atLast
      ? html` <button type="button" id="as-of-last-check" onClick=${() => onNow(lastAt)}>Show as of the last recorded check</button>` : null}
    ${mode === 'local' && nowSeconds !== undefined
      ? html` <button type="button" id="use-clock" onClick=${() => onNow('')}>Use this browser's clock</button>` : null}
  </p>`;
}

function Sidebar({ mode, local, server, open, go, setPreview, nowSeconds, overview }) {
  if (mode !== 'local') {
    return html`<${ServerPanel} rows=${open ? overview.rows : null} total=${overview.total} error=${overview.error}
      openName=${open && open.kind === 'server' ? open.name : ''}
      onOpen=${(name) => go({ open: { kind: 'server', name } })}
      token=${server.token} tokenState=${server.tokenState} onToken=${server.onToken} />`;
  }
  const onDeleted = async (name) => {
    await local.refreshCopies();
    if (open && open.name === name) go({ mode: 'local' });
  };
  return html`<${LocalPanel} store=${local.store} whenReady=${local.whenReady} storeError=${local.storeError} copies=${local.copies}
    openName=${open && open.kind === 'local' ? open.name : ''}
    onOpen=${(name) => go({ open: { kind: 'local', name } })}
    onImported=${async (name) => { await local.refreshCopies(); go({ open: { kind: 'local', name } }); }}
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

// Scrolls the view named in the address into sight, and keeps it there while
// the cards above it load and grow (a direct load or a reload lands on the
// card, not where it was before the cards above were drawn); the owner's
// own scrolling or typing ends it.
function useViewScroll(view, key, paramsKey) {
  useEffect(() => {
    if (!view) return undefined;
    let tries = 0;
    let timer = 0;
    let stable = 0;
    let lastTop = NaN;
    let moved = false;
    const stop = () => { moved = true; };
    const events = ['wheel', 'touchmove', 'keydown', 'mousedown'];
    for (const e of events) addEventListener(e, stop, { passive: true });
    const find = () => {
      if (moved) return;
      const el = document.getElementById(view);
      if (el) {
        const loading = [...document.querySelectorAll('#main .card')].some((c) => /Loading…/.test(c.textContent));
        el.scrollIntoView({ block: 'start' });
        const top = el.getBoundingClientRect().top;
        stable = !loading && Math.abs(top - lastTop) < 1 ? stable + 1 : 0;
        lastTop = top;
        if (stable >= 4) return;
      }
      if (++tries < 100) timer = setTimeout(find, 100);
    };
    find();
    return () => { clearTimeout(timer); for (const e of events) removeEventListener(e, stop); };
  }, [view, key]);
}

const VIEW_LINKS = [['needs-you', 'What needs you'], ['goal-status', 'Goal'], ['readings', 'Readings'], ['decision-log', 'Decision log'],
  ['messages', 'Messages'], ['memory', 'Memory'], ['agent-log', 'Agent log'], ['inspect', 'Inspect']];

function OpenWorkflow({ open, source, route, go, dirty, shownNow, readOnly, onChanged, clock, knownRows, inspect }) {
  const back = routeHash({ mode: open.kind === 'server' ? 'server' : 'local' });
  const view = route.view;
  // A card's filters go into the address with the card (a reload lands there).
  const onParams = (card, params) => go({ open, view: card, params });
  const linkFor = (card) => routeHash({ open, view: card });
  const workflowLink = (name) => routeHash({ open: { kind: open.kind, name } });
  return html`<div class="open-title">
      <a class="back-link" href=${back}>← All ${open.kind === 'server' ? 'workflows' : 'copies'}</a>
      <h2>${open.name}</h2>
      <span class="muted">${open.kind === 'local' ? 'local copy' : 'on the server'}${dirty ? ' · changed in this browser — export to keep' : ''}</span>
    </div>
    <nav class="view-links" aria-label="Cards">${VIEW_LINKS.map(([id, label]) => html`<a href=${routeHash({ open, view: id })}
      aria-current=${view === id ? 'location' : undefined}>${label}</a>`)}</nav>
    ${inspect || html`${clock}
    <${Dashboard} key=${`${open.kind}:${open.name}${shownNow || ''}`} source=${source} nowSeconds=${shownNow}
      readOnly=${readOnly} onChanged=${onChanged} view=${view} params=${route.params || {}} onParams=${onParams}
      linkFor=${linkFor} workflowLink=${workflowLink} knownRows=${knownRows} />`}`;
}

function MainPane({ mode, route, go, local, server, source, key, preview, now, dirty, setDirty, overview }) {
  const open = route.open;
  const shownNow = mode === 'server' ? server.serverNow : now.nowSeconds;
  const nowMs = (shownNow !== undefined ? shownNow : Date.now() / 1000) * 1000;
  if (preview && preview.check) return html`<${PreviewCard} preview=${preview} nowSeconds=${now.nowSeconds} />`;
  if (!open) {
    return html`<${OverviewCard} pages=${overview} error=${mode === 'local' ? local.storeError : ''} mode=${mode} nowMs=${nowMs} />`;
  }
  if (open.kind === 'local' && local.store && !local.copies.some((c) => c.name === open.name)) {
    return html`<${NoSuchWorkflow} name=${open.name} error="No copy by this name in this browser: it may have been deleted, or imported in another browser."
      rows=${local.copies} linkFor=${(name) => routeHash({ open: { kind: 'local', name } })} />`;
  }
  if (!source) return html`<div class="empty"><h2>${open.name}</h2><p>Opening the copy…</p></div>`;
  const readOnly = open.kind === 'server' && (!server.token || server.tokenState === 'refused')
    ? 'Read only: paste the owner token (left) to answer or edit.' : '';
  const onChanged = () => { if (open.kind === 'local') { setDirty((d) => ({ ...d, [key]: true })); local.refreshCopies(); } };
  const clock = html`<${ClockLine} source=${source} mode=${mode} nowSeconds=${shownNow} serverNow=${server.serverNow} onNow=${now.onNow} />`;
  const inspect = route.view === 'inspect' ? html`<${InspectPane} open=${open} local=${local} query=${route.query} go=${go} />` : null;
  return html`<${OpenWorkflow} open=${open} source=${source} route=${route} go=${go} dirty=${dirty[key]} shownNow=${shownNow}
    readOnly=${readOnly} onChanged=${onChanged} clock=${clock} knownRows=${overview.rows} inspect=${inspect} />`;
}

function App() {
  const now = useNow();
  const { route, go } = useRoute();
  const [dirty, setDirty] = useState({});
  // The goal check computed on a file being imported, shown until it is stored.
  const [preview, setPreview] = useState(null);
  const local = useLocalCopies();
  const server = useServer();
  // The address decides the mode; "#/" is the server's when one answers.
  const mode = route.mode || (server.serverUp ? 'server' : 'local');
  const switchMode = (m) => go({ mode: m });
  const { key, source } = useOpenSource(route.open, local.store, server.api);
  const overview = useOverviewPages({ mode, shown: !route.open, local, server, nowSeconds: now.nowSeconds });
  useViewScroll(route.view, key);
  // The page's title names the workflow and the card.
  useEffect(() => { document.title = routeTitle(route); }, [route.view, route.open && route.open.name, route.mode]);

  return html`<div class=${`app mode-${mode}`}>
    <${TopBar} mode=${mode} switchMode=${switchMode} serverUp=${server.serverUp} now=${now} serverNow=${server.serverNow}
      importing=${server.importing} thinksWith=${server.thinksWith} />
    <div class=${`layout ${route.open ? 'layout-open' : 'layout-overview'}`}>
      <aside class="sidebar">
        <${Sidebar} mode=${mode} local=${local} server=${server} open=${route.open} go=${go}
          setPreview=${setPreview} nowSeconds=${now.nowSeconds} overview=${overview} />
      </aside>
      <main class="main" id="main">
        <${MainPane} mode=${mode} route=${route} go=${go} local=${local} server=${server} source=${source} key=${key}
          preview=${preview} now=${now} dirty=${dirty} setDirty=${setDirty} overview=${overview} />
      </main>
    </div>
  </div>`;
}

// "Skip to the cards" moves the focus without touching the address (the
// fragment is the tab's route).
const skip = document.querySelector('.skip');
if (skip) {
  skip.addEventListener('click', (e) => {
    e.preventDefault();
    const main = document.getElementById('main');
    if (main) { main.setAttribute('tabindex', '-1'); main.focus(); }
  });
}

const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);

// Offline: a service worker keeps the page's assets (see sw.js). Not in the
// way when unavailable (file://, some private modes).
if ('serviceWorker' in navigator && location.protocol.startsWith('http') && !params.has('nosw')) {
  navigator.serviceWorker.register(new URL('./sw.js', import.meta.url), { scope: './' }).catch(() => {});
}
