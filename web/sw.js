// The Pulse tab's service worker: keeps a copy of every asset the page has
// loaded from this origin (page, modules, vendored libraries, the WASM module)
// so the tab reopens with no network at all. Network first, so a rebuilt
// module is picked up at once; the cached copy answers only when the network
// does not. The server's JSON API (/api/, /s/, /mcp) is never cached.
const CACHE = 'pulse-tab-v1';

// Modules the page imports only when a card needs them (the chart's uPlot)
// and what Inspect loads only when it opens (its worker, what the worker
// imports, its style sheet, and the WASM module its worker instantiates,
// which a tab whose Pulse worker is not the pool's owner never loaded):
// kept at install, each on its own, so a copy first opened offline still
// draws its chart and can be inspected.
const ON_DEMAND = ['./vendor/uPlot.esm.js', './inspect/inspect-worker.mjs', './inspect/engine.mjs', './inspect/sql.mjs',
  './inspect/btree.mjs', './inspect/inspect.css', ...['pulse.mjs', 'pulse.wasm', 'sqljs-api.mjs', 'sqljs-statement.mjs',
    'sqljs-functions.mjs', 'sqljs-guard.mjs', 'opfs-pool.mjs', 'opfs-copies.mjs', 'file-handle.mjs', 'result-codes.mjs',
    'sqlite-header.mjs']
    .map((f) => `./wasm/${f}`)];

self.addEventListener('install', (event) => {
  self.skipWaiting();
  event.waitUntil(caches.open(CACHE).then((c) => Promise.all(ON_DEMAND.map((u) => c.add(u).catch(() => {})))));
});
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== 'GET' || url.origin !== self.location.origin) return;
  if (/^\/(api|s|mcp)(\/|$)/.test(url.pathname)) return;
  event.respondWith((async () => {
    try {
      const res = await fetch(req);
      if (res.ok && res.type === 'basic') {
        const copy = res.clone();
        caches.open(CACHE).then((c) => c.put(req, copy)).catch(() => {});
      }
      return res;
    } catch (err) {
      const hit = await caches.match(req, { ignoreSearch: url.pathname.endsWith('/') || url.pathname.endsWith('.html') });
      if (hit) return hit;
      throw err;
    }
  })());
});
