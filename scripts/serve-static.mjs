#!/usr/bin/env node
// A minimal static file server for the web page and the tests: web/ at `/`
// and build/wasm/ at `/wasm/` (where web/pulse-worker.mjs loads the module).
// Loopback only by default. The native `pulse serve` replaces it later.
//
//   node scripts/serve-static.mjs [--host 127.0.0.1] [--port 8080]
//   import { startStaticServer } from './scripts/serve-static.mjs'
import { createServer } from 'node:http';
import { createReadStream, statSync, existsSync } from 'node:fs';
import { join, resolve, extname, dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

// mounts: [[urlPrefix, directory]], longest prefix first. isolated: the
// files are sent with COOP and COEP, as `pulse serve` sends them (the page is
// then cross-origin isolated: Inspect's Cancel stops a query through a
// SharedArrayBuffer); false serves them as any plain static host would.
export function startStaticServer({
  host = '127.0.0.1',
  port = 0,
  mounts = [['/wasm/', join(ROOT, 'build', 'wasm')], ['/', join(ROOT, 'web')]],
  quiet = true,
  isolated = true,
} = {}) {
  const isolation = isolated
    ? { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } : {};
  const server = createServer((req, res) => {
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      res.writeHead(400).end('bad request\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end('method not allowed\n');
      return;
    }
    // The Pulse tab asks whether a `pulse serve` is behind it: a static
    // server says "no" plainly (a 404 would be a console error in the page).
    if (pathname === '/api/health') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end('{"ok":false}\n');
      return;
    }
    // A page that is a module file (a test's worker page) still gets
    // Chromium's favicon request: nothing to show, and no 404 to log.
    if (pathname === '/favicon.ico') {
      res.writeHead(204, { 'Cache-Control': 'no-store' }).end();
      return;
    }
    if (pathname === '/' && !existsSync(join(ROOT, 'web', 'index.html'))) {
      res.writeHead(302, { Location: '/opfs-demo.html' }).end();
      return;
    }
    for (const [prefix, dir] of mounts) {
      if (!pathname.startsWith(prefix)) continue;
      const base = resolve(dir);
      let file = resolve(base, '.' + sep + pathname.slice(prefix.length));
      if (file !== base && !file.startsWith(base + sep)) break; // escapes the mount
      try {
        if (statSync(file).isDirectory()) file = join(file, 'index.html');
        const st = statSync(file);
        res.writeHead(200, {
          'Content-Type': TYPES[extname(file)] || 'application/octet-stream',
          'Content-Length': st.size,
          'Cache-Control': 'no-store',
          'X-Content-Type-Options': 'nosniff',
          ...isolation,
        });
        if (req.method === 'HEAD') res.end();
        else createReadStream(file).pipe(res);
        if (!quiet) console.log(`${req.method} ${pathname} 200`);
        return;
      } catch {
        break;
      }
    }
    if (!quiet) console.log(`${req.method} ${pathname} 404`);
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`not found: ${pathname}\n`);
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      resolvePromise({
        server,
        port: actual,
        url: `http://${host}:${actual}`,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(name);
    return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
  };
  const host = arg('--host', '127.0.0.1');
  const port = Number(arg('--port', '8080'));
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve-static: --port ${arg('--port')}: not a port number`);
    process.exit(2);
  }
  if (!existsSync(join(ROOT, 'build', 'wasm', 'pulse.wasm'))) {
    console.error('serve-static: build/wasm/pulse.wasm is missing: run scripts/setup.sh first');
    process.exit(2);
  }
  startStaticServer({ host, port, quiet: false }).then(
    ({ url }) => console.log(`serving the OPFS demo at ${url}/opfs-demo.html (web/ at /, build/wasm/ at /wasm/)`),
    (e) => {
      console.error(`serve-static: cannot listen on ${host}:${port}: ${e.message}`);
      process.exit(2);
    },
  );
}
