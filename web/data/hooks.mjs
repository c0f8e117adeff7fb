// The page's two places data comes from, as Preact hooks the shell holds:
// the copies in this browser (the worker, data/local-store.mjs) and the
// `pulse serve` behind the page, if any (data/server-api.mjs).
import { useState, useEffect, useCallback } from 'preact/hooks';
import { parseNowParam } from '../format.mjs';
import { ServerApi, storedToken, storeToken } from './server-api.mjs';
import { LocalStore } from './local-store.mjs';

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

// The server behind the page: whether there is one, its clock, its
// workflows, and the owner token (stored in this browser) it accepts or not.
export function useServer() {
  const [api] = useState(() => new ServerApi(''));
  const [serverUp, setServerUp] = useState(false);
  const [workflows, setWorkflows] = useState([]);
  const [serverError, setServerError] = useState('');
  const [token, setToken] = useState(storedToken());
  const [tokenState, setTokenState] = useState('');
  const [serverNow, setServerNow] = useState(undefined);
  useEffect(() => {
    api.health().then(async (health) => {
      const up = !!health;
      setServerUp(up);
      if (!up) return;
      setServerNow(parseNowParam(health.now).seconds);
      if (storedToken()) api.checkToken().then((ok) => setTokenState(ok ? 'ok' : 'refused')).catch(() => {});
      try { setWorkflows(await api.workflows()); } catch (err) { setServerError(errorText(err)); }
    });
  }, []);
  const onToken = async (t) => {
    storeToken(t);
    setToken(storedToken());
    setTokenState('');
    if (t) setTokenState((await api.checkToken().catch(() => false)) ? 'ok' : 'refused');
  };
  return { api, serverUp, workflows, serverError, token, tokenState, serverNow, onToken };
}
