// The server's first two answers, asked for as the tab starts. This module
// runs inside the tab's bundle (web/dist/app.mjs, scripts/bundle-web.mjs)
// before app.mjs's own code, so before the app's first render: GET /api/health goes out at once, and the
// overview's first page (GET /api/workflows?limit=25, whose goal statuses
// the server computes) as soon as health has answered, not after the app's
// own effects have asked for health again. ServerApi takes each answer
// once, by its URL (takeEarly), instead of asking again; any later request
// is its own.
//
// Not asked for: the first page under a local-mode address (#/local,
// #/copy/..., ?mode=local), which shows no server rows first, or when no
// `pulse serve` answers /api/health; anything when the page is not served
// over HTTP (file://, Node's tests).
import { parseRoute, routeFromQuery } from './route.mjs';
import { OVERVIEW_PAGE } from './overview.mjs';
import { apiHeaders, takeTokenFromLocation } from './token.mjs';

const early = new Map();  // URL -> Promise

// {ok, now, ...} from `pulse serve`, or null when none answers within 1.5 s.
export async function fetchHealth(base = '') {
  try {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), 1500);
    const res = await fetch(`${base}/api/health`, { signal: ctl.signal, cache: 'no-store' });
    clearTimeout(timer);
    if (!res.ok) return null;
    const body = await res.json();
    return body && body.ok ? body : null;
  } catch {
    return null;
  }
}

// The early request for `url` (its promise), once; null when there is none
// or it was taken. The page's promise resolves to the Response, or to null
// when the request failed (the caller then asks itself and reports why).
export function takeEarly(url) {
  const p = early.get(url);
  early.delete(url);
  return p || null;
}

function start() {
  const loc = globalThis.location;
  if (typeof fetch !== 'function' || !loc || !String(loc.protocol).startsWith('http')) return;
  // A token in the address is stored first, so the page request carries it.
  takeTokenFromLocation();
  const health = fetchHealth('');
  early.set('/api/health', health);
  const hash = loc.hash && loc.hash !== '#' ? loc.hash : routeFromQuery(new URLSearchParams(loc.search));
  if (parseRoute(hash).mode === 'local') return;
  // Once a `pulse serve` answered (a few ms): a static server behind the
  // page would answer the page with a 404, an error in the console.
  const page = `/api/workflows?limit=${OVERVIEW_PAGE}`;
  early.set(page, health.then((up) => (up ? fetch(page, { headers: apiHeaders(false), cache: 'no-store' }) : null))
    .catch(() => null));
}

start();
