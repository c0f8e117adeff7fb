// Where Inspect meets the tab's shell (app.mjs): the address
// #/copy/<name>/inspect[?view] inspects a copy in this browser;
// #/w/<slug>/inspect offers to take a snapshot of the served workflow's
// database (the owner-only GET /api/workflows/<slug>/snapshot, a consistent
// copy SQLite's backup API makes while the server keeps writing), stores it
// as a copy named <slug>-snapshot and inspects that: Inspect always reads a
// copy in this browser, so it works offline.
import { html } from 'htm/preact';
import { useState, useEffect, useMemo } from 'preact/hooks';
import { InspectView, copyClient } from './view.mjs';
import { storedToken } from '../data/token.mjs';
import { ServerApi } from '../data/server-api.mjs';
import { formatBytes, formatTime } from '../format.mjs';
import { routeHash } from '../data/route.mjs';

function useAddress(open) {
  return (q, push) => {
    const base = routeHash({ open, view: 'inspect' });
    const url = `${location.pathname}${location.search}${q ? `${base}?${q}` : base}`;
    if (push) history.pushState(null, '', url);
    else history.replaceState(null, '', url);
  };
}

function CopyInspect({ open, local, query }) {
  const client = useMemo(() => (local.store ? copyClient(local.store, open.name) : null), [local.store, open.name]);
  useEffect(() => () => client && client.close(), [client]);
  const setQuery = useAddress(open);
  if (!client) return html`<p class="muted">Starting the database worker…</p>`;
  const copy = local.copies.find((c) => c.name === open.name);
  return html`<${InspectView} name=${open.name} client=${client} query=${query} setQuery=${setQuery} size=${copy && copy.size} />`;
}

// The snapshot's copy name: one per served workflow, replaced by the next.
export const snapshotName = (workflow) => `${String(workflow).slice(0, 50)}-snapshot`;

function SnapshotPane({ open, local, query, go }) {
  const [state, setState] = useState({ phase: 'idle' });
  const name = snapshotName(open.name);
  const existing = local.copies.find((c) => c.name === name);
  const token = storedToken();
  const take = async () => {
    setState({ phase: 'taking' });
    try {
      const blob = await new ServerApi('').snapshot(open.name);
      setState({ phase: 'storing', size: blob.size, fraction: 0 });
      const store = await local.whenReady();
      if ((await store.list()).some((c) => c.name === name)) await store.remove(name);
      const file = new File([blob], `${open.name}.db.sqlite`, { type: 'application/vnd.sqlite3' });
      await store.importFile(name, file, `snapshot of ${open.name} from ${location.host}`,
        (fraction) => setState({ phase: 'storing', size: blob.size, fraction }));
      await store.rememberWorkflow(name, open.name);
      await local.refreshCopies();
      go({ open: { kind: 'local', name }, view: 'inspect', query });
    } catch (e) {
      setState({ phase: 'error', error: (e && e.message) || String(e) });
    }
  };
  const busy = state.phase === 'taking' || state.phase === 'storing';
  return html`<section class="card snapshot-pane" id="inspect" aria-labelledby="inspect-title">
    <header class="card-head"><h2 id="inspect-title">Inspect ${open.name}</h2></header>
    <p>Inspect reads a copy of the workflow's database in this browser: its tables, a page of rows at a time, filters,
      the top values of a column, read-only SQL, and CSV or JSON exports, with no further request to the server
      (it works offline).</p>
    <p>The copy is a <strong>snapshot</strong> the server takes with SQLite's backup API while it keeps running, so it is
      consistent even while Pulse writes. Taking one needs the owner token.</p>
    ${existing ? html`<p>This browser has a snapshot from ${existing.importedAt ? `${formatTime(existing.importedAt)} UTC` : 'earlier'}
      (${formatBytes(existing.size)}): <a href=${routeHash({ open: { kind: 'local', name }, view: 'inspect' }) + (query ? `?${query}` : '')}>inspect it</a>,
      or take a new one (it replaces it).</p>` : null}
    <div class="row">
      <button type="button" class="primary" id="take-snapshot" disabled=${busy || !token} onClick=${take}>
        ${existing ? 'Take a new snapshot and inspect it' : 'Take a snapshot and inspect it'}</button>
      ${!token ? html`<span class="muted">Paste the owner token (left) first.</span>` : null}
    </div>
    <div role="status" class="inspect-note">${state.phase === 'taking' ? 'The server is taking the snapshot…'
      : state.phase === 'storing' ? `Storing the snapshot (${formatBytes(state.size)}) in this browser… ${Math.round(state.fraction * 100)}%` : ''}</div>
    ${state.phase === 'error' ? html`<p class="card-error" role="alert">No snapshot: ${state.error}</p>` : null}
  </section>`;
}

export function InspectPane({ open, local, query, go }) {
  return open.kind === 'server'
    ? html`<${SnapshotPane} open=${open} local=${local} query=${query} go=${go} />`
    : html`<${CopyInspect} open=${open} local=${local} query=${query} />`;
}
