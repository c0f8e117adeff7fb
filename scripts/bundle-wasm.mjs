// The WASM module's JS face as one minified file: wasm/sqljs-api.mjs with
// everything it imports (the Emscripten glue pulse.mjs the link wrote, the
// statement and function layers, the result codes, the header check),
// bundled by esbuild (pinned in package.json) into BUILD/sqljs-api.mjs. A
// fresh Node process or a worker then reads, parses and links one module
// instead of six, and the glue is minified beyond what Emscripten does
// (bench/anchors.mjs, module load). The other files stay next to it, as
// they are, for whoever imports them one by one (opfs-pool.mjs,
// sqljs-worker.mjs, pulse.mjs with bindApi).
//
//   node scripts/bundle-wasm.mjs SOURCE_DIR BUILD_DIR   (wasm/CMakeLists.txt runs it)
//
// The glue finds pulse.wasm next to itself through import.meta.url, which
// stays the bundle's own URL: the same folder.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export async function bundleWasm(sourceDir, buildDir) {
  const { build } = await import('esbuild');
  // The glue is the link's output, the header check the page's own module.
  const fromBuild = {
    name: 'from-build',
    setup(b) {
      b.onResolve({ filter: /^\.\/pulse\.mjs$/ }, () => ({ path: join(buildDir, 'pulse.mjs') }));
      b.onResolve({ filter: /^\.\/sqlite-header\.mjs$/ }, () => ({ path: join(sourceDir, '..', 'web', 'sqlite-header.mjs') }));
    },
  };
  const out = await build({
    entryPoints: [join(sourceDir, 'sqljs-api.mjs')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2020',
    platform: 'neutral',
    write: false,
    legalComments: 'none',
    logLevel: 'error',
    plugins: [fromBuild],
  });
  const js = out.outputFiles[0];
  mkdirSync(buildDir, { recursive: true });
  const target = join(buildDir, 'sqljs-api.mjs');
  const tmp = `${target}.${process.pid}.tmp`;
  writeFileSync(tmp, js.contents);
  renameSync(tmp, target);  // a reader never sees half a file
  return js.contents.length;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const [sourceDir, buildDir] = process.argv.slice(2);
  if (!sourceDir || !buildDir) {
    console.error('usage: node scripts/bundle-wasm.mjs SOURCE_DIR BUILD_DIR');
    process.exit(2);
  }
  bundleWasm(resolve(sourceDir), resolve(buildDir)).catch((e) => {
    console.error(`bundle-wasm: ${e.message}`);
    process.exit(1);
  });
}
