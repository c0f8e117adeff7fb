// Copies the browser libraries the Pulse tab uses (preact, htm, uPlot) from
// node_modules into web/vendor/, so that whatever serves web/ at "/" (pulse
// serve, the browser tests' static server) also serves them, with no CDN and
// no network once loaded. The versions are the ones pinned in
// package-lock.json; web/vendor/ is generated (gitignored). Then the tab's
// bundle, web/dist/app.mjs (scripts/bundle-web.mjs), is made again if a
// module under web/ changed since. Safe to re-run.
import { bundleWebSync } from './bundle-web.mjs';
import { copyFileSync, mkdirSync, existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const NM = join(ROOT, 'node_modules');
const OUT = join(ROOT, 'web', 'vendor');

// [source under node_modules, destination under web/vendor]
export const VENDOR_FILES = [
  ['preact/dist/preact.module.js', 'preact.module.js'],
  ['preact/hooks/dist/hooks.module.js', 'preact-hooks.module.js'],
  ['htm/dist/htm.module.js', 'htm.module.js'],
  ['htm/preact/index.module.js', 'htm-preact.module.js'],
  ['uplot/dist/uPlot.esm.js', 'uPlot.esm.js'],
  ['uplot/dist/uPlot.min.css', 'uPlot.min.css'],
];

export function vendorWeb() {
  mkdirSync(OUT, { recursive: true });
  for (const [src, dst] of VENDOR_FILES) {
    const from = join(NM, src);
    if (!existsSync(from)) throw new Error(`vendor-web: ${from} is missing (run npm ci first)`);
    const to = join(OUT, dst);
    if (existsSync(to) && statSync(to).mtimeMs >= statSync(from).mtimeMs && statSync(to).size === statSync(from).size) continue;
    copyFileSync(from, to);
  }
  bundleWebSync();
  return OUT;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  vendorWeb();
}
