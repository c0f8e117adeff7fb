#!/usr/bin/env node
// What each part of the WASM module costs, on the shipping build (build/wasm),
// with the toolchain's own tools:
// - the link is run once more, exactly as ninja runs it (ninja -t commands),
//   plus emcc's --emit-symbol-map, into a temp dir: the name of every wasm
//   function (the shipping build stays without it);
// - llvm-nm lists the names each input defines: SQLite (libsqlite3.a), the
//   extension functions (sqljs_functions.c.o, which holds extension-
//   functions.c), the core (core/libpulse_core.a), the bindings (the other
//   wasm/ objects); what no input defines is Emscripten's runtime (libc,
//   libc++, malloc, Embind);
// - each function's body size comes from the binary's code section.
// Per part: code bytes, share of the code section, and the gzip size of
// that part's code alone (parts compress less alone than together, so those
// add up to more than the whole module's gzip). Then the JS files.
//
//   node bench/wasm_size.mjs            (takes one extra link, ~1-3 min)
//   node bench/wasm_size.mjs --top 40   (and the 40 largest functions, with
//                                        their part: where a size step starts)
//   KEEP=1 node bench/wasm_size.mjs     (keeps the relinked module and its
//                                        symbol map; prints their folder)
import { execFileSync, execSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BUILD = process.env.PULSE_WASM_DIR || join(ROOT, 'build', 'wasm');
const KB = (n) => `${(n / 1024).toFixed(1)} KB`;
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const env = { ...process.env, NODE_PATH: '/usr/share/nodejs' };

// The module's link, repeated with a symbol map into `dir`.
function linkWithSymbolMap(dir) {
  const lines = execFileSync('ninja', ['-C', BUILD, '-t', 'commands', 'pulse_wasm'], { encoding: 'utf8', env, maxBuffer: 1 << 26 }).trim().split('\n');
  // The link alone, without the POST_BUILD wasm-opt run that follows it
  // (wasm/CMakeLists.txt), which would renumber the functions.
  const link = lines[lines.length - 1].split(' && ').filter((part) => !/wasm-opt/.test(part)).join(' && ');
  if (!/ -o pulse\.mjs /.test(link)) throw new Error(`unexpected link command: ${link.slice(0, 200)}`);
  execSync(link.replace(' -o pulse.mjs ', ` --emit-symbol-map -o ${join(dir, 'pulse.mjs')} `), { cwd: BUILD, env, stdio: 'inherit' });
  return { wasm: readFileSync(join(dir, 'pulse.wasm')), symbols: readFileSync(join(dir, 'pulse.mjs.symbols'), 'utf8') };
}

// Sections, and the body size of each defined function by function index.
function parseWasm(b) {
  let o = 8;
  const leb = () => {
    let r = 0;
    let s = 0;
    let x;
    do {
      x = b[o++];
      r += (x & 127) * 2 ** s;
      s += 7;
    } while (x & 128);
    return r;
  };
  const sections = [];
  let importedFunctions = 0;
  const bodies = [];
  while (o < b.length) {
    const id = b[o++];
    const size = leb();
    const start = o;
    sections.push({ id, size: size + (start - o) });
    if (id === 2) {
      for (let n = leb(), i = 0; i < n; i++) {
        // Module and field names. Not `o += leb()`: that reads `o` before
        // leb() moves it past the length.
        for (let k = 0; k < 2; k++) {
          const len = leb();
          o += len;
        }
        const kind = b[o++];
        if (kind === 0) {
          leb();
          importedFunctions++;
        } else if (kind === 1) {
          o++;
          if (b[o++] & 1) leb(), leb(); else leb();
        } else if (kind === 2) {
          if (b[o++] & 1) leb(), leb(); else leb();
        } else {
          o += 2;
        }
      }
    } else if (id === 10) {
      for (let n = leb(), i = 0; i < n; i++) {
        const len = leb();
        bodies.push({ index: importedFunctions + i, start: o, size: len });
        o += len;
      }
    }
    o = start + size;
  }
  return { sections, bodies };
}

// Names each input defines (llvm-nm reads the LTO bitcode objects),
// demangled as wasm-ld writes them into the binary's names.
function definedBy(files) {
  const names = new Set();
  for (const f of files) {
    const args = ['--defined-only', '--demangle', '--format=just-symbols', f];
    const out = execFileSync('llvm-nm', args, { encoding: 'utf8', maxBuffer: 1 << 28 });
    for (const line of out.split('\n')) if (line && !line.endsWith(':')) names.add(line.trim());
  }
  return names;
}

const wasmObjects = join(BUILD, 'wasm', 'CMakeFiles', 'pulse_wasm.dir');
const objects = readdirSync(wasmObjects).filter((f) => f.endsWith('.o')).map((f) => join(wasmObjects, f));
// First match wins: a name both SQLite and extension-functions.c define
// (static helpers, or functions of the same name) counts as SQLite's; a C++
// template both the core and the bindings instantiate counts as the core's.
const PARTS = [
  ['SQLite', definedBy([join(BUILD, 'libsqlite3.a')])],
  ['extension functions', definedBy(objects.filter((f) => f.endsWith('sqljs_functions.c.o')))],
  ['core', definedBy([join(BUILD, 'core', 'libpulse_core.a')])],
  ['bindings (wasm/)', definedBy(objects.filter((f) => !f.endsWith('sqljs_functions.c.o')))],
];
const RUNTIME = 'Emscripten runtime (libc, libc++, malloc, Embind)';
const topAt = process.argv.indexOf('--top');
const TOP = topAt > 0 ? Number(process.argv[topAt + 1]) : 0;
if (topAt > 0 && !(Number.isInteger(TOP) && TOP > 0)) {
  console.error(`--top: expected a positive whole number, got ${JSON.stringify(process.argv[topAt + 1] ?? '')}`);
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'pulse-wasm-size-'));
try {
  const shipping = readFileSync(join(BUILD, 'pulse.wasm'));
  const { wasm, symbols } = linkWithSymbolMap(dir);
  const nameOf = new Map(symbols.split('\n').filter(Boolean).map((l) => {
    const i = l.indexOf(':');
    // The map escapes what a wasm name may not hold: "\\28" for "(".
    return [Number(l.slice(0, i)), l.slice(i + 1).replace(/\\([0-9a-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)))];
  }));
  const { sections, bodies } = parseWasm(wasm);
  const code = new Map([...PARTS.map(([p]) => [p, []]), [RUNTIME, []]]);
  for (const body of bodies) {
    body.name = (nameOf.get(body.index) || '').replace(/\.\d+$/, '');
    const part = PARTS.find(([, names]) => names.has(body.name));
    body.part = part ? part[0] : RUNTIME;
    code.get(body.part).push(body);
  }
  const codeTotal = bodies.reduce((n, x) => n + x.size, 0);
  console.log(`pulse.wasm (shipping): ${KB(shipping.length)} raw, ${KB(gz(shipping))} gzip` +
    `  (relinked with a symbol map: ${KB(wasm.length)} raw)`);
  console.log(`\nCode section by part (${bodies.length} functions, ${KB(codeTotal)})`);
  for (const [part, list] of code) {
    const size = list.reduce((n, x) => n + x.size, 0);
    const alone = gz(Buffer.concat(list.map((x) => wasm.subarray(x.start, x.start + x.size))));
    console.log(`  ${part.padEnd(52)} ${String(list.length).padStart(5)} functions  ${KB(size).padStart(9)}` +
      `  ${((100 * size) / codeTotal).toFixed(1).padStart(5)} %  ${KB(alone).padStart(9)} gzip alone`);
  }
  if (TOP) {
    console.log(`\nThe ${TOP} largest functions (code bytes, part, name)`);
    for (const b of [...bodies].sort((x, y) => y.size - x.size).slice(0, TOP)) {
      console.log(`  ${String(b.size).padStart(7)}  ${b.part.split(' ')[0].padEnd(9)} ${b.name.slice(0, 150)}`);
    }
  }
  const names = { 1: 'type', 2: 'import', 3: 'function', 4: 'table', 5: 'memory', 6: 'global', 7: 'export', 9: 'element', 10: 'code', 11: 'data', 0: 'custom' };
  console.log('\nSections');
  for (const s of sections) console.log(`  ${(names[s.id] || `id ${s.id}`).padEnd(10)} ${KB(s.size).padStart(9)}`);
  console.log('\nJS next to it (gzip)');
  for (const f of readdirSync(BUILD).filter((x) => x.endsWith('.mjs')).sort()) {
    const bytes = readFileSync(join(BUILD, f));
    console.log(`  ${f.padEnd(22)} ${KB(statSync(join(BUILD, f)).size).padStart(9)} raw  ${KB(gz(bytes)).padStart(8)} gzip`);
  }
} finally {
  if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true }); else console.log(dir);
}
