// The Pulse tab: one page, two clearly labelled modes.
//  - Server: the workflows of the `pulse serve` that served this page, read
//    from its API; answers and memory edits go through the server with the
//    owner's token.
//  - Local copy: a workflow database imported into this browser (OPFS), opened
//    by the WASM core in a dedicated Worker; everything works offline and
//    actions change only the copy, which can be exported back to a file.
// The cards are the same in both; only where the documents come from differs.
import { html, render } from 'htm/preact';
import { useState, useEffect, useLayoutEffect, useRef, useCallback } from 'preact/hooks';
import {
  GoalStatusCard, ReadingsCard, RunsByRouteCard, NeedsYouCard, DecisionLogCard, GoalMemoryCard,
  AgentLogCard, CardError, CardLoading,
} from './cards.mjs';
import { formatBytes, formatTime, parseNowParam, isoSeconds, copyNameFor, statusWord } from './format.mjs';
import { ServerApi, takeTokenFromLocation, storedToken, storeToken } from './server-api.mjs';
import { LocalStore } from './local-store.mjs';

const params = new URLSearchParams(location.search);
takeTokenFromLocation();

// ---------- the source of the open workflow ----------

// A source answers core API calls for one open workflow.
function localSource(store, name) {
  return {
    kind: 'local',
    label: name,
    call: (method, args, now) => store.call(name, method, args, now),
  };
}

function serverSource(api, workflow) {
  return {
    kind: 'server',
    label: workflow,
    call: (method, args, now) => api.call(workflow, method, args, now),
  };
}

const CARD_METHODS = [
  ['check', 'goal.check', () => ({})],
  ['readings', 'goal.readings', () => ({})],
  ['routes', 'goal.runs_by_route', () => ({})],
  ['decisions', 'decision.list', () => ({ status: 'all' })],
  ['memory', 'memory.show', () => ({})],
];

// The agent log can hold hundreds of thousands of rows; the card asks for a
// period (default: the last 7 days) and, besides, for every row still
// running, however old (stuck rows are what an operator looks for).
const PERIOD_SECONDS = { '24h': 86400, '7d': 7 * 86400, '30d': 30 * 86400 };

function agentLogArgs(f, nowSeconds) {
  const a = {};
  if (f.session) a.session = f.session;
  if (f.run) a.pulse_run_id = f.run;
  if (f.status) a.status = f.status;
  if (f.stuckAfter) a.stuck_after_minutes = Number(f.stuckAfter);
  const period = f.period || '7d';
  if (PERIOD_SECONDS[period]) a.since = isoSeconds(Math.floor(nowSeconds) - PERIOD_SECONDS[period]);
  return a;
}

async function readAgentLog(source, f, nowSeconds) {
  const now = nowSeconds !== undefined ? nowSeconds : Date.now() / 1000;
  const args = agentLogArgs(f, now);
  const doc = await source.call('agent_log.show', args, nowSeconds);
  if (!args.since || f.status) return doc;
  const running = await source.call('agent_log.show', { ...args, since: undefined, status: 'running' }, nowSeconds);
  const key = (r) => `${r.workspace_path}\u0000${r.session_id}\u0000${r.agent_id}`;
  const seen = new Set(doc.rows.map(key));
  const extra = (running.rows || []).filter((r) => !seen.has(key(r)));
  if (!extra.length) return doc;
  const rows = [...extra, ...doc.rows];
  rows.sort((a, b) => String(a.started_at || a.updated_at).localeCompare(String(b.started_at || b.updated_at)));
  return { ...doc, rows, stuck: rows.filter((r) => r.stuck).length };
}

// ---------- the dashboard for one open workflow ----------

function Dashboard({ source, nowSeconds, readOnly, onChanged }) {
  const [docs, setDocs] = useState({});
  const [errors, setErrors] = useState({});
  const [filters, setFilters] = useState({ groupBy: 'session', period: '7d' });
  const [allAgents, setAllAgents] = useState({ sessions: [], runs: [] });
  const [busyId, setBusyId] = useState(null);
  const [notice, setNotice] = useState('');
  const [memError, setMemError] = useState('');
  const [saving, setSaving] = useState(false);
  const gen = useRef(0);
  const noticeRef = useRef(null);

  const load = useCallback(async (which) => {
    const g = ++gen.current;
    const jobs = CARD_METHODS.filter(([key]) => !which || which.includes(key));
    // The goal status first: it is what the owner reads first.
    performance.mark('pulse:cards-requested');
    await Promise.all(jobs.map(async ([key, method, args]) => {
      try {
        const doc = await source.call(method, args(), nowSeconds);
        if (key === 'check') performance.mark('pulse:goal-check-answered');
        if (g !== gen.current && which === undefined) return;
        setDocs((d) => ({ ...d, [key]: doc }));
        setErrors((e) => ({ ...e, [key]: '' }));
      } catch (err) {
        setErrors((e) => ({ ...e, [key]: err.message || String(err) }));
      }
    }));
  }, [source, nowSeconds]);

  const loadAgents = useCallback(async (f) => {
    try {
      const doc = await readAgentLog(source, f, nowSeconds);
      setDocs((d) => ({ ...d, agents: doc }));
      setErrors((e) => ({ ...e, agents: '' }));
      if (!f.session && !f.run && !f.status) {
        const rows = (doc && doc.rows) || [];
        setAllAgents({
          sessions: [...new Set(rows.map((r) => r.session_id).filter(Boolean))],
          runs: [...new Set(rows.map((r) => r.pulse_run_id).filter(Boolean))],
        });
      }
    } catch (err) {
      setErrors((e) => ({ ...e, agents: err.message || String(err) }));
    }
  }, [source, nowSeconds]);

  useEffect(() => { setDocs({}); setErrors({}); load(); }, [load]);
  // For bench/web_open.mjs: when the goal status card first shows.
  useLayoutEffect(() => {
    if (docs.check || errors.check) requestAnimationFrame(() => performance.mark('pulse:goal-card-shown'));
  }, [!!docs.check, !!errors.check]);
  useEffect(() => { loadAgents(filters); }, [loadAgents, filters]);

  const onAnswer = async (d, answer) => {
    setBusyId(d.id);
    setNotice('');
    try {
      await source.call('decision.answer', { id: d.id, ...answer }, nowSeconds);
      setNotice(`Answered: ${d.question}`);
      await load(['decisions', 'memory', 'check']);
      // The answered item is gone: keep the keyboard user's place on the notice.
      if (noticeRef.current) noticeRef.current.focus();
      if (onChanged) onChanged();
    } catch (err) {
      setNotice(`Could not answer: ${err.message || err}`);
    } finally {
      setBusyId(null);
    }
  };

  const onSaveMemory = async (text, doc) => {
    setSaving(true);
    setMemError('');
    try {
      await source.call('memory.save', { text, base_hash: doc && (doc.hash || doc.base_hash) }, nowSeconds);
      await load(['memory']);
      if (onChanged) onChanged();
      return true;
    } catch (err) {
      setMemError(`Not saved: ${err.message || err}`);
      return false;
    } finally {
      setSaving(false);
    }
  };

  const nowMs = (nowSeconds !== undefined ? nowSeconds : Date.now() / 1000) * 1000;
  const card = (key, id, title, body) => (errors[key] ? html`<${CardError} id=${id} title=${title} error=${errors[key]} />`
    : docs[key] === undefined ? html`<${CardLoading} id=${id} title=${title} />` : body());

  return html`<div class="dashboard">
    <div class="notice" role="status" aria-live="polite" tabindex="-1" ref=${noticeRef}>${notice}</div>
    ${card('check', 'goal-status', 'Goal status', () => html`<${GoalStatusCard} check=${docs.check} nowMs=${nowMs} />`)}
    <div class="grid">
      ${card('readings', 'readings', 'Readings', () => html`<${ReadingsCard} doc=${docs.readings} nowMs=${nowMs} />`)}
      ${card('routes', 'routes', 'Runs by route', () => html`<${RunsByRouteCard} doc=${docs.routes} />`)}
    </div>
    <div class="grid">
      ${card('decisions', 'needs-you', 'Needs you', () => html`<${NeedsYouCard} doc=${docs.decisions} nowMs=${nowMs}
        onAnswer=${onAnswer} busyId=${busyId} readOnly=${readOnly} />`)}
      ${card('decisions', 'decision-log', 'Decision log', () => html`<${DecisionLogCard} doc=${docs.decisions} nowMs=${nowMs} />`)}
    </div>
    ${card('memory', 'memory', 'Goal memory', () => html`<${GoalMemoryCard} doc=${docs.memory} onSave=${onSaveMemory}
      readOnly=${readOnly} saving=${saving} error=${memError} />`)}
    ${card('agents', 'agent-log', 'Background agent log', () => html`<${AgentLogCard} doc=${docs.agents} nowMs=${nowMs}
      filters=${filters} onFilter=${setFilters} sessions=${allAgents.sessions} runs=${allAgents.runs} />`)}
  </div>`;
}

// ---------- local copies ----------

function findDbInFolder(files) {
  const list = [...files];
  const best = list.filter((f) => /(^|\/)db\/db\.sqlite$/.test(f.webkitRelativePath || f.name))
    .sort((a, b) => (a.webkitRelativePath || '').length - (b.webkitRelativePath || '').length)[0];
  const top = list.length ? (list[0].webkitRelativePath || '').split('/')[0] : '';
  const wal = best && list.find((f) => (f.webkitRelativePath || '') === `${best.webkitRelativePath}-wal` && f.size > 0);
  return { file: best, folder: top, wal: !!wal };
}

// A dropped folder: look for <folder>/db/db.sqlite through the entry API.
function dbFromDirectoryEntry(entry) {
  return new Promise((resolve, reject) => {
    entry.getFile('db/db.sqlite', {}, (fe) => fe.file(resolve, reject),
      () => reject(new Error(`folder "${entry.name}" has no db/db.sqlite (is it a workflow folder?)`)));
  });
}

function LocalPanel({ store, storeError, copies, openName, onOpen, onImported, onDeleted, onVerified, onPreview, nowSeconds }) {
  const fileInput = useRef(null);
  const folderInput = useRef(null);
  const [progress, setProgress] = useState(null);
  const [error, setError] = useState('');
  const [info, setInfo] = useState('');
  const [dragging, setDragging] = useState(false);
  const [confirming, setConfirming] = useState('');

  const importOne = async (file, baseName, source, warn) => {
    setError('');
    setInfo('');
    const name = copyNameFor(baseName, copies.map((c) => c.name));
    setProgress({ name, fraction: 0, phase: 'reading', size: file.size });
    try {
      await store.importFile(name, file, source, (fraction, phase) => setProgress({ name, fraction, phase, size: file.size }),
        (check) => onPreview({ name, check }), nowSeconds);
      setInfo(`Imported ${name} (${formatBytes(file.size)}).${warn ? ` ${warn}` : ''}`);
      // Open it first: the goal status card is what the owner waits for.
      await onImported(name);
      store.call(name, 'pulse.config', {})
        .then((cfg) => (cfg && cfg.workflow ? store.rememberWorkflow(name, cfg.workflow).then(onVerified) : null))
        .catch(() => { /* a database with no Pulse snapshot still opens */ });
      // The whole-file check runs once the cards have had the worker first.
      setTimeout(() => {
        store.verify(name).then((result) => {
          if (result !== 'ok') setError(`${name}: SQLite's integrity check found a problem: ${result}. Re-export it from the workflow, or delete this copy.`);
          return onVerified();
        }).catch(() => {});
      }, 2000);
    } catch (err) {
      setError(`Not imported: ${err.message || err}. Your other copies are unchanged.`);
    } finally {
      setProgress(null);
      onPreview(null);
    }
  };

  const onFile = (e) => {
    performance.mark('pulse:file-chosen');
    const file = e.target.files && e.target.files[0];
    e.target.value = '';
    if (file) importOne(file, file.name, file.name);
  };

  const onFolder = (e) => {
    const { file, folder, wal } = findDbInFolder(e.target.files || []);
    e.target.value = '';
    if (!file) { setError(`Not imported: folder "${folder || '?'}" has no db/db.sqlite (is it a workflow folder?)`); return; }
    importOne(file, folder || 'workflow', `${folder}/db/db.sqlite`,
      wal ? 'The folder also has a db.sqlite-wal file: changes not yet checkpointed are not in this copy.' : '');
  };

  const onDrop = async (e) => {
    e.preventDefault();
    setDragging(false);
    const item = e.dataTransfer.items && e.dataTransfer.items[0];
    const entry = item && item.webkitGetAsEntry ? item.webkitGetAsEntry() : null;
    try {
      if (entry && entry.isDirectory) {
        const file = await dbFromDirectoryEntry(entry);
        await importOne(file, entry.name, `${entry.name}/db/db.sqlite`);
        return;
      }
    } catch (err) {
      setError(`Not imported: ${err.message || err}`);
      return;
    }
    const file = e.dataTransfer.files && e.dataTransfer.files[0];
    if (file) importOne(file, file.name, file.name);
  };

  const doExport = async (name) => {
    setError('');
    try {
      const bytes = await store.exportBytes(name);
      const url = URL.createObjectURL(new Blob([bytes], { type: 'application/vnd.sqlite3' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = `${name}.db.sqlite`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
      setInfo(`Exported ${name} (${formatBytes(bytes.length)}).`);
    } catch (err) {
      setError(`Not exported: ${err.message || err}`);
    }
  };

  const doDelete = async (name) => {
    setConfirming('');
    setError('');
    try {
      await store.remove(name);
      setInfo(`Deleted ${name}.`);
      await onDeleted(name);
    } catch (err) {
      setError(`Not deleted: ${err.message || err}`);
    }
  };

  if (storeError) {
    return html`<div class="panel"><p class="card-error" role="alert">Local copies are not available here: ${storeError}</p></div>`;
  }
  return html`<div class="panel local-panel">
    <div class=${`dropzone ${dragging ? 'dragging' : ''}`}
      onDragOver=${(e) => { e.preventDefault(); setDragging(true); }}
      onDragLeave=${() => setDragging(false)} onDrop=${onDrop}>
      <p><strong>Open a copy</strong> of a workflow database: drop a <code>db.sqlite</code> or a workflow folder here, or</p>
      <div class="row">
        <button type="button" class="primary" id="choose-file" disabled=${!store || !!progress}
          onClick=${() => fileInput.current.click()}>Choose db.sqlite…</button>
        <button type="button" id="choose-folder" disabled=${!store || !!progress}
          onClick=${() => folderInput.current.click()}>Choose workflow folder…</button>
      </div>
      <input type="file" ref=${fileInput} class="hidden-input" id="file-input" tabindex="-1" aria-hidden="true"
        accept=".sqlite,.sqlite3,.db,application/vnd.sqlite3,application/x-sqlite3" onChange=${onFile} />
      <input type="file" ref=${folderInput} class="hidden-input" id="folder-input" tabindex="-1" aria-hidden="true"
        webkitdirectory=${true} directory="" onChange=${onFolder} />
      ${!store ? html`<p class="muted">Starting the database worker…</p>` : null}
    </div>
    ${progress ? html`<div class="progress" role="status">
      <label for="import-progress">${`${progress.phase === 'reading' ? 'Reading' : 'Storing'} ${progress.name} (${formatBytes(progress.size)})… ${Math.round(progress.fraction * 100)}%`}</label>
      <progress id="import-progress" max="100" value=${Math.round(progress.fraction * 100)}></progress>
    </div>` : null}
    <div role="alert" class="import-error">${error}</div>
    <div role="status" class="import-info">${info}</div>
    <h2 class="panel-title">Copies in this browser</h2>
    ${copies.length === 0 ? html`<p class="muted">No copies yet.</p>` : html`<ul class="copies">
      ${copies.map((c) => html`<li class=${`copy ${c.name === openName ? 'open' : ''}`} data-name=${c.name}>
        <div class="copy-name">${c.name}${c.name === openName ? html` <span class="tag">open</span>` : null}</div>
        <div class="copy-meta muted">${c.workflow && c.workflow !== c.name ? html`workflow <strong>${c.workflow}</strong> · ` : null}${formatBytes(c.size)} · imported ${c.importedAt ? `${formatTime(c.importedAt)} UTC` : '—'}
          ${c.checked === 'ok' ? html` · <span title="SQLite quick_check passed">checked ✓</span>` : c.checked ? html` · <span class="failed">damaged</span>` : null}</div>
        ${confirming === c.name
          ? html`<div class="row"><span>Delete ${c.name}?</span>
              <button type="button" class="danger" onClick=${() => doDelete(c.name)}>Delete</button>
              <button type="button" onClick=${() => setConfirming('')}>Keep</button></div>`
          : html`<div class="row">
              <button type="button" onClick=${() => onOpen(c.name)} aria-label=${`Open ${c.name}`}>Open</button>
              <button type="button" onClick=${() => doExport(c.name)} aria-label=${`Export ${c.name}`}>Export</button>
              <button type="button" onClick=${() => setConfirming(c.name)} aria-label=${`Delete ${c.name}`}>Delete</button>
            </div>`}
      </li>`)}
    </ul>`}
  </div>`;
}

// ---------- server ----------

function ServerPanel({ api, workflows, error, openName, onOpen, token, tokenState, onToken }) {
  const [draft, setDraft] = useState('');
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
    ${token
      ? html`<p class=${tokenState === 'refused' ? 'card-error' : 'muted'}>${tokenState === 'refused'
          ? 'The server refused this token: paste the one in <workspace>/.pulse/owner-token.'
          : tokenState === 'ok' ? 'Accepted by the server. Answers and memory edits go to the server.' : 'Set in this browser.'}</p>
        <button type="button" onClick=${() => onToken('')}>Forget token</button>`
      : html`<form onSubmit=${(e) => { e.preventDefault(); onToken(draft); setDraft(''); }}>
        <p class="muted">Needed to answer decisions or edit memory: paste it from <code>&lt;workspace&gt;/.pulse/owner-token</code>.</p>
        <label class="field">Token <input type="password" value=${draft} autocomplete="off" onInput=${(e) => setDraft(e.target.value)} /></label>
        <button type="submit">Use token</button>
      </form>`}
  </div>`;
}

// ---------- the page ----------

// The goal status card of a file still being stored: computed by the core in
// the worker from the File itself, before the copy exists.
function PreviewCard({ preview, nowSeconds }) {
  useLayoutEffect(() => { requestAnimationFrame(() => performance.mark('pulse:goal-card-shown')); }, []);
  const nowMs = (nowSeconds !== undefined ? nowSeconds : Date.now() / 1000) * 1000;
  return html`<div class="open-title"><h2>${preview.name}</h2><span class="muted">storing the copy in this browser… the other cards follow</span></div>
    <div class="dashboard"><${GoalStatusCard} check=${preview.check} nowMs=${nowMs} /></div>`;
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

function App() {
  const initialNow = parseNowParam(params.get('now'));
  const [nowSeconds, setNowSeconds] = useState(initialNow.seconds);
  const [nowError, setNowError] = useState(initialNow.error);
  const [mode, setMode] = useState(params.get('mode') === 'server' ? 'server' : 'local');
  const [serverUp, setServerUp] = useState(false);
  const [api] = useState(() => new ServerApi(''));
  const [workflows, setWorkflows] = useState([]);
  const [serverError, setServerError] = useState('');
  const [token, setToken] = useState(storedToken());
  const [tokenState, setTokenState] = useState('');
  const [serverNow, setServerNow] = useState(undefined);
  const [store, setStore] = useState(null);
  const [storeError, setStoreError] = useState('');
  const [copies, setCopies] = useState([]);
  const [open, setOpen] = useState(null); // {kind, name}
  const [dirty, setDirty] = useState({});
  // The goal check computed on a file being imported, shown until it is stored.
  const [preview, setPreview] = useState(null);

  const refreshCopies = useCallback(async (s = store) => {
    if (!s) return [];
    const list = await s.list();
    setCopies(list);
    return list;
  }, [store]);

  useEffect(() => {
    LocalStore.open().then(async (s) => {
      setStore(s);
      const list = await s.list();
      setCopies(list);
      // ?copy=NAME, else the copy open when the page was last left.
      const want = params.get('copy') || localStorage.getItem('pulse.lastCopy');
      if (want && list.some((c) => c.name === want) && params.get('mode') !== 'server') setOpen({ kind: 'local', name: want });
    }).catch((err) => setStoreError(err.message || String(err)));
    api.health().then(async (health) => {
      const up = !!health;
      setServerUp(up);
      if (!up) return;
      setServerNow(parseNowParam(health.now).seconds);
      if (storedToken()) api.checkToken().then((ok) => setTokenState(ok ? 'ok' : 'refused')).catch(() => {});
      if (!params.get('mode')) setMode('server');
      try { setWorkflows(await api.workflows()); } catch (err) { setServerError(err.message || String(err)); }
    });
  }, []);

  const switchMode = (m) => { setMode(m); setOpen(null); };
  useEffect(() => {
    if (open && open.kind === 'local') localStorage.setItem('pulse.lastCopy', open.name);
  }, [open && open.kind, open && open.name]);
  const onNow = (text) => {
    const parsed = parseNowParam(text);
    setNowError(parsed.error);
    if (parsed.error) return;
    setNowSeconds(parsed.seconds);
    const u = new URL(location.href);
    if (parsed.seconds === undefined) u.searchParams.delete('now'); else u.searchParams.set('now', isoSeconds(parsed.seconds));
    history.replaceState(null, '', u);
  };

  const source = open && (open.kind === 'local' ? store && localSource(store, open.name) : serverSource(api, open.name));
  // Memoise the source per open target so the dashboard reloads only when it changes.
  const sourceRef = useRef({ key: '', source: null });
  const key = open ? `${open.kind}:${open.name}` : '';
  if (sourceRef.current.key !== key || (source && !sourceRef.current.source)) sourceRef.current = { key, source };

  const readOnly = open && open.kind === 'server' && (!token || tokenState === 'refused')
    ? 'Read only: paste the owner token (left) to answer or edit.' : '';
  // The server computes at its own clock; the page shows its times against it.
  const shownNow = mode === 'server' ? serverNow : nowSeconds;
  const onToken = async (t) => {
    storeToken(t);
    setToken(storedToken());
    setTokenState('');
    if (t) setTokenState((await api.checkToken().catch(() => false)) ? 'ok' : 'refused');
  };

  return html`<div class=${`app mode-${mode}`}>
    <header class="topbar">
      <div class="brand"><span class="logo" aria-hidden="true">◉</span> <h1>Pulse</h1></div>
      <nav class="mode-switch" aria-label="Mode">
        <button type="button" aria-pressed=${mode === 'server'} class=${mode === 'server' ? 'active' : ''}
          disabled=${!serverUp} title=${serverUp ? '' : 'No pulse serve behind this page'}
          onClick=${() => switchMode('server')}>Server</button>
        <button type="button" aria-pressed=${mode === 'local'} class=${mode === 'local' ? 'active' : ''}
          onClick=${() => switchMode('local')}>Local copy</button>
      </nav>
      ${mode === 'local'
        ? html`<${NowSetting} nowSeconds=${nowSeconds} nowError=${nowError} onNow=${onNow} />`
        : html`<span class="now-setting">Server clock${serverNow !== undefined ? `: ${isoSeconds(serverNow)}` : ''}</span>`}
    </header>
    <div class=${`mode-banner banner-${mode}`} id="mode-banner">
      ${mode === 'server'
        ? html`<strong>Served by pulse serve</strong> — the server's workflows; answers and edits go through the server.`
        : html`<strong>Local copy, offline</strong> — computed in this browser by the WASM core; actions change only the copy in this browser (export it to keep them).`}
      ${mode === 'local' && nowSeconds !== undefined ? html` <span class="now-tag">Evaluated at ${isoSeconds(nowSeconds)}</span>` : null}
    </div>
    <div class="layout">
      <aside class="sidebar">
        ${mode === 'local'
          ? html`<${LocalPanel} store=${store} storeError=${storeError} copies=${copies}
              openName=${open && open.kind === 'local' ? open.name : ''}
              onOpen=${(name) => setOpen({ kind: 'local', name })}
              onImported=${async (name) => { setOpen({ kind: 'local', name }); await refreshCopies(); }}
              onDeleted=${async (name) => {
                if (localStorage.getItem('pulse.lastCopy') === name) localStorage.removeItem('pulse.lastCopy');
                await refreshCopies();
                if (open && open.name === name) setOpen(null);
              }}
              onVerified=${() => refreshCopies()} onPreview=${setPreview} nowSeconds=${nowSeconds} />`
          : html`<${ServerPanel} api=${api} workflows=${workflows} error=${serverError}
              openName=${open && open.kind === 'server' ? open.name : ''}
              onOpen=${(name) => setOpen({ kind: 'server', name })}
              token=${token} tokenState=${tokenState} onToken=${onToken} />`}
      </aside>
      <main class="main" id="main">
        ${preview && preview.check
          ? html`<${PreviewCard} preview=${preview} nowSeconds=${nowSeconds} />`
          : sourceRef.current.source
          ? html`<div class="open-title"><h2>${open.name}</h2>
              <span class="muted">${open.kind === 'local' ? 'local copy' : 'on the server'}${dirty[key] ? ' · changed in this browser — export to keep' : ''}</span></div>
            <${Dashboard} key=${key + (shownNow || '')} source=${sourceRef.current.source} nowSeconds=${shownNow}
              readOnly=${readOnly}
              onChanged=${() => { if (open.kind === 'local') { setDirty((d) => ({ ...d, [key]: true })); refreshCopies(); } }} />`
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
