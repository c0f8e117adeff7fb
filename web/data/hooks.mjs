// The page's two places data comes from, as Preact hooks the shell holds:
// the copies in this browser (the worker, data/local-store.mjs) and the
// `pulse serve` behind the page, if any (data/server-api.mjs).
import { useState, useEffect, useCallback, useRef } from 'preact/hooks';
import { parseNowParam } from '../format.mjs';
import { ServerApi, storedToken, storeToken } from './server-api.mjs';
import { LocalStore } from './local-store.mjs';
import { loadLocalPage, loadServerPage } from './overview.mjs';

const errorText = (err) => err.message || String(err);

// The worker's store and its list of copies. `whenReady()` resolves with the
// store once it is open, so an action started before (a file chosen at once)
// waits for it instead of failing.
export function useLocalCopies() {
  const [store, setStore] = useState(null);
  const [storeError, setStoreError] = useState('');
  const [copies, setCopies] = useState([]);
  const [ready] = useState(() => {
    let resolve;
    let reject;
    const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
    promise.catch(() => {});
    return { promise, resolve, reject };
  });
  const refreshCopies = useCallback(async (s = store) => {
    const st = s || await ready.promise;
    const list = await st.list();
    setCopies(list);
    return list;
  }, [store]);
  useEffect(() => {
    LocalStore.open().then(async (s) => {
      const list = await s.list();
      setCopies(list);
      setStore(s);
      ready.resolve(s);
    }).catch((err) => { setStoreError(errorText(err)); ready.reject(err); });
    // Another Pulse tab imported or deleted a copy: its record changed.
    const onStorage = (e) => {
      if (e.key === 'pulse.copies') ready.promise.then((s) => s.list()).then(setCopies).catch(() => {});
    };
    addEventListener('storage', onStorage);
    return () => removeEventListener('storage', onStorage);
  }, []);
  return { store, storeError, copies, refreshCopies, whenReady: () => ready.promise };
}

const IMPORT_POLL_MS = 5000;

// The server behind the page: whether there is one, its clock, and the
// owner token (stored in this browser) it accepts or not. Its workflows are
// read a page at a time (useOverviewPages).
export function useServer() {
  const [api] = useState(() => new ServerApi(''));
  const [serverUp, setServerUp] = useState(false);
  const [token, setToken] = useState(storedToken());
  const [tokenState, setTokenState] = useState('');
  const [serverNow, setServerNow] = useState(undefined);
  // Workflows whose schedule-runs.json history the tick is still bringing in
  // (/api/health tick.importing); read again every IMPORT_POLL_MS until none.
  const [importing, setImporting] = useState(0);
  // What the server's turns run on (`turns` of /api/health).
  const [turns, setTurns] = useState(null);
  useEffect(() => {
    let timer = 0;
    api.health().then(async (health) => {
      const up = !!health;
      setServerUp(up);
      if (!up) return;
      setServerNow(parseNowParam(health.now).seconds);
      setTurns(health.turns || null);
      if (storedToken()) api.checkToken().then((ok) => setTokenState(ok ? 'ok' : 'refused')).catch(() => {});
      const follow = (h) => {
        const n = Number(h && h.tick && h.tick.importing) || 0;
        setImporting(n);
        if (n > 0) timer = setTimeout(() => api.health().then(follow, () => follow(null)), IMPORT_POLL_MS);
      };
      follow(health);
    });
    return () => clearTimeout(timer);
  }, []);
  const onToken = async (t) => {
    storeToken(t);
    setToken(storedToken());
    setTokenState('');
    if (t) setTokenState((await api.checkToken().catch(() => false)) ? 'ok' : 'refused');
  };
  return { api, serverUp, token, tokenState, serverNow, importing, onToken, turns };
}

// The overview's pages for the mode shown: the first page (filtered by the
// name filter `q`) whenever the overview is shown again or its list, clock or
// filter changed, and the next one on `more()`. While a workflow is open the
// rows already read stay (the server's side panel lists them); they are read
// once if none were.
export function useOverviewPages({ mode, shown, local, server, nowSeconds }) {
  const [q, setQ] = useState('');
  const [state, setState] = useState({ key: '', rows: [], next: null, total: 0, complete: false, loading: false, error: '' });
  const seq = useRef(0);
  const ready = mode === 'local' ? !!local.store : server.serverUp;
  const listKey = mode === 'local' ? local.copies.map((c) => `${c.name}:${c.size}`).join(',') : '';
  const key = `${mode}|${listKey}|${nowSeconds}|${q}`;
  const load = (cursor) => (mode === 'local'
    ? loadLocalPage(local.store, local.copies, nowSeconds, { cursor, q })
    : loadServerPage(server.api, { cursor, q }));
  const run = (cursor, merge) => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    load(cursor).then((page) => seq.current === mine && setState((s) => merge(s, page)))
      .catch((err) => seq.current === mine && setState((s) => ({ ...s, loading: false, error: errorText(err) })));
  };
  useEffect(() => {
    if (!ready || (!shown && state.key === key)) return;
    run('', (s, page) => ({ key, rows: page.rows, next: page.next, total: page.total, complete: !page.next, loading: false, error: '' }));
  }, [ready, shown, key]);
  const more = () => {
    if (!state.next || state.loading) return;
    run(state.next, (s, page) => ({ ...s, rows: [...s.rows, ...page.rows], next: page.next, total: page.total, loading: false, error: '' }));
  };
  const fresh = state.key === key;
  return { ...state, rows: fresh || state.key.startsWith(`${mode}|`) ? state.rows : [], q, setQ, more, ready };
}
