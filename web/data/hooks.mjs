// The page's two places data comes from, as Preact hooks the shell holds:
// the copies in this browser (the worker, data/local-store.mjs) and the
// `pulse serve` behind the page, if any (data/server-api.mjs).
import { useState, useEffect, useCallback } from 'preact/hooks';
import { parseNowParam } from '../format.mjs';
import { ServerApi, storedToken, storeToken } from './server-api.mjs';
import { LocalStore } from './local-store.mjs';

const errorText = (err) => err.message || String(err);

// The worker's store and its list of copies. `onReady(list)` runs once the
// store is open (the shell reopens the copy open when the page was left).
export function useLocalCopies(onReady) {
  const [store, setStore] = useState(null);
  const [storeError, setStoreError] = useState('');
  const [copies, setCopies] = useState([]);
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
      onReady(list);
    }).catch((err) => setStoreError(errorText(err)));
  }, []);
  return { store, storeError, copies, refreshCopies };
}

// The server behind the page: whether there is one, its clock, its
// workflows, and the owner token (stored in this browser) it accepts or not.
// `onUp()` runs when a server answers.
export function useServer(onUp) {
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
      onUp();
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
