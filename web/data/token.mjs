// The owner's token in this browser (no imports: data/early.mjs reads it
// before the rest of the tab has loaded). Reads are open on loopback; writes
// (answers, memory edits) carry it as `Authorization: Bearer ...`.
//
// The token reaches the page either pasted once by the owner (kept in this
// browser's localStorage) or in the URL fragment the server prints,
// `http://127.0.0.1:8080/#token=...` (a fragment never travels to the server
// or into its logs); the page stores it and removes it from the address bar.

const TOKEN_KEY = 'pulse.ownerToken';

export function takeTokenFromLocation(loc = globalThis.location, storage = globalThis.localStorage) {
  const m = /(?:^#|&)token=([^&]+)/.exec(loc.hash || '');
  if (!m) return false;
  storage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
  const rest = (loc.hash || '').replace(/(^#|&)token=[^&]+/, '$1').replace(/^#&/, '#').replace(/^#$/, '');
  globalThis.history.replaceState(null, '', loc.pathname + loc.search + rest);
  return true;
}

export function storedToken(storage = globalThis.localStorage) {
  return storage.getItem(TOKEN_KEY) || '';
}

export function storeToken(token, storage = globalThis.localStorage) {
  if (token) storage.setItem(TOKEN_KEY, token.trim());
  else storage.removeItem(TOKEN_KEY);
}

// The headers of a request to the server's API: JSON, and the stored token
// when there is one.
export function apiHeaders(write) {
  const h = { Accept: 'application/json' };
  if (write) h['Content-Type'] = 'application/json';
  const t = storedToken();
  if (t) h.Authorization = `Bearer ${t}`;
  return h;
}
