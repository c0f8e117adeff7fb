// Browser-suite helpers for the Pulse tab tests: a static server laid out like
// `pulse serve` (web/ at "/", build/wasm/ at "/wasm/"), Debian's Chromium
// through playwright-core on a persistent temp profile (OPFS survives reloads
// and restarts), and screenshots a person can look at (tests/artifacts/).
import { createServer } from 'node:http';
import { createReadStream, existsSync, mkdirSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { ROOT, WASM_DIR } from '../node/helpers.mjs';

export const ARTIFACTS = join(ROOT, 'tests', 'artifacts');
export const CHROMIUM = process.env.PULSE_CHROMIUM || '/usr/bin/chromium';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript', '.js': 'text/javascript',
  '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

// mounts: [[urlPrefix, dir]], longest prefix first.
export async function startStaticServer(mounts = [['/wasm/', WASM_DIR], ['/', join(ROOT, 'web')]]) {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const mount = mounts.find(([prefix]) => path.startsWith(prefix));
    if (!mount) { res.writeHead(404); res.end(); return; }
    const [prefix, dir] = mount;
    let file = normalize(join(dir, path.slice(prefix.length)));
    if (!file.startsWith(normalize(dir + sep)) && file !== normalize(dir)) { res.writeHead(403); res.end(); return; }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) { res.writeHead(404, { 'Content-Type': 'text/plain' }); res.end('not found'); return; }
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] || 'application/octet-stream', 'Cache-Control': 'no-store' });
    createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

export async function launchBrowser(profileDir) {
  const { chromium } = await import('playwright-core');
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: ['--no-sandbox'],
    acceptDownloads: true,
  });
}

export async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
