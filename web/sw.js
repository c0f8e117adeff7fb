// The Pulse tab's service worker: keeps a copy of every asset the page has
// loaded from this origin (page, modules, vendored libraries, the WASM module)
// so the tab reopens with no network at all. Network first, so a rebuilt
// module is picked up at once; the cached copy answers only when the network
// does not. The server's JSON API (/api/, /s/, /mcp) is never cached.
const CACHE = 'pulse-tab-v1';

// Modules the page imports only when a card needs them (the chart's uPlot):
// kept at install, so a copy first opened offline still draws its chart.
const ON_DEMAND = ['./vendor/uPlot.esm.js'];

self.addEventListener('install', (event) => {
  self.skipWaiting();
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(ON_DEMAND)).catch(() => {}));
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
