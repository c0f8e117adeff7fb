// The Pulse tab as one minified module: web/app.mjs and every module it
// imports (web/cards/, web/data/, preact, htm), bundled by esbuild (pinned
// in package.json) into web/dist/app.mjs, which web/index.html loads. A new
// module under web/ is in the bundle as soon as something imports it; the
// sources stay as they are, for the tests that import them one by one.
// web/dist/ is generated (gitignored), as web/vendor/ is.
//
//   node scripts/bundle-web.mjs            (scripts/build.sh runs it)
//
// Left out of the bundle: the chart library (`uplot`, imported only when a
// chart is drawn: index.html's import map still names it), and whatever a
// module loads by URL (the worker, the service worker): a module's
// `new URL('x', import.meta.url)` is rewritten to the same file as seen
// from web/dist/, so it names what it named before.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, renameSync, statSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const WEB = join(ROOT, 'web');
export const BUNDLE_DIR = join(WEB, 'dist');
export const BUNDLE = join(BUNDLE_DIR, 'app.mjs');

const URL_OF_FILE = /new URL\((['"])(\.{1,2}\/[^'"]+)\1,\s*import\.meta\.url\)/g;

// Rewrites each module's own-location URLs to web/dist/'s view of them.
const ownUrls = {
  name: 'own-urls',
  setup(b) {
    b.onLoad({ filter: /\.m?js$/ }, (args) => {
      if (!args.path.startsWith(WEB + sep)) return undefined;
      const text = readFileSync(args.path, 'utf8');
      const contents = text.replace(URL_OF_FILE, (_, q, rel) => {
        let moved = relative(BUNDLE_DIR, resolve(dirname(args.path), rel)).split(sep).join('/');
        if (!moved.startsWith('.')) moved = `./${moved}`;
        return `new URL(${q}${moved}${q}, import.meta.url)`;
      });
      return { contents, loader: 'js' };
    });
  },
};

// Builds the bundle; writes it only when it changed (renamed into place, so
// a page loading it meanwhile never reads half a file). Returns its size.
export async function bundleWeb() {
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: [join(WEB, 'app.mjs')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    external: ['uplot'],
    outfile: BUNDLE,
    write: false,
    legalComments: 'none',
    logLevel: 'error',
    plugins: [ownUrls],
  });
  const js = out.outputFiles.find((f) => f.path === BUNDLE);
  if (!js) throw new Error('bundle-web: esbuild wrote no web/dist/app.mjs');
  mkdirSync(BUNDLE_DIR, { recursive: true });
  const before = existsSync(BUNDLE) ? readFileSync(BUNDLE) : null;
  if (!before || !before.equals(Buffer.from(js.contents))) {
    const tmp = `${BUNDLE}.${process.pid}.tmp`;
    writeFileSync(tmp, js.contents);
    renameSync(tmp, BUNDLE);
  } else {
    const now = new Date();
    utimesSync(BUNDLE, now, now);  // checked against its sources: fresh
  }
  return js.contents.length;
}

// The newest modification time among what the bundle is made of: the
// modules under web/ (not web/dist/ or web/vendor/), this script and the
// pinned packages.
function newestSource() {
  let newest = Math.max(statSync(fileURLToPath(import.meta.url)).mtimeMs, statSync(join(ROOT, 'package-lock.json')).mtimeMs);
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (p !== BUNDLE_DIR && p !== join(WEB, 'vendor')) walk(p);
      } else if (/\.m?js$/.test(e.name)) {
        newest = Math.max(newest, statSync(p).mtimeMs);
      }
    }
  };
  walk(WEB);
  return newest;
}

// The same for a caller that cannot wait on a promise (scripts/vendor-web.mjs,
// which every browser test calls before serving web/): builds in a child
// process, and only when a source is newer than the bundle.
export function bundleWebSync() {
  if (existsSync(BUNDLE) && statSync(BUNDLE).mtimeMs >= newestSource()) return;
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bundle-web: ${(r.stderr || r.stdout || `exit ${r.status}`).trim()}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  bundleWeb().catch((e) => {
    console.error(`bundle-web: ${e.message}`);
    process.exit(1);
  });
}
