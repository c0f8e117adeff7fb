// The SQLite amalgamation with the functions a running aggregate spends its
// time in optimised for speed and the rest for size, in one translation
// unit (the amalgamation's functions are static to it). The WASM build
// compiles SQLite at -O2 and this marks every other function with clang's
// `minsize` and `cold` attributes, which the optimiser (and the link-time
// optimiser) honours as -Oz does: the parser, the code generator, the query
// planner, the extensions and the virtual machine's loop stay as small as
// before; the handful of functions below, found by profiling a
// covering-index GROUP BY (bench/anchors.mjs, SQL speed), are compiled for
// speed. Marking whole files instead cost 8 to 20 KB gzip a file and was
// slower (docs/wasm.md).
//
//   node scripts/sqlite-hot-cold.mjs SQLITE3_C OUT_C
//
// Declarations in the amalgamation's headers come before any marked region,
// so a hot function's prototype never carries the attribute. A file's start
// is the amalgamation's own "Begin file NAME" marker, a function's extent its
// definition line to the first "}" alone on a line (SQLite's style); a
// marker or function the script does not find fails the build rather than
// silently marking nothing.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Whole files compiled for speed (none: each cost more than its functions
// below, and -O2 on the virtual machine's loop made it larger, not faster).
export const HOT_FILES = [];
// The functions a covering-index GROUP BY with count, sum and avg spends
// its time in, outside the virtual machine's loop (which -O2 made larger
// and hardly faster): the sum's compensated addition, the aggregate steps
// and context, reading a value as a number, decoding a record's field, and
// stepping an index cursor. Each was a top entry of a CPU profile of the
// -Oz module (node --cpu-prof, with names kept by --profiling-funcs).
export const HOT_FUNCTIONS = [
  'kahanBabuskaNeumaierStep', 'kahanBabuskaNeumaierStepInt64', 'sumStep', 'countStep', 'sqlite3_aggregate_context',
  'sqlite3_value_type', 'sqlite3_value_numeric_type', 'sqlite3_value_double', 'sqlite3VdbeRealValue',
  'sqlite3VdbeMemRealify', 'sqlite3VdbeSerialGet', 'serialGet', 'btreeParseCellPtrIndex', 'getCellInfo',
  'sqlite3BtreeNext', 'btreeNext', 'sqlite3BtreePayloadSize', 'sqlite3BtreePayloadFetch', 'fetchPayload',
  'sqlite3MemCompare',
];
// Where marking starts: the first source file after the headers.
const FIRST_SOURCE = 'ctime.c';

const BEGIN = '/************** Begin file ';
const RESUME = '/************** Continuing where we left off in ';
const PUSH = '#pragma clang attribute push (__attribute__((minsize)), apply_to = function)\n#pragma clang attribute push (__attribute__((cold)), apply_to = function)\n';
const POP = '#pragma clang attribute pop\n#pragma clang attribute pop\n';

// Every marker where the source file changes, in order: [offset, file name]
// (a header's own text, and the file it was included from again after it).
function markers(text) {
  const out = [];
  for (const mark of [BEGIN, RESUME]) {
    for (let at = text.indexOf(mark); at >= 0; at = text.indexOf(mark, at + mark.length)) {
      const from = at + mark.length;
      out.push([at, text.slice(from, text.indexOf(' ', from))]);
    }
  }
  return out.sort((x, y) => x[0] - y[0]);
}

// [start, end) of `name`'s definition: from the start of its first line
// (which names it and is not a prototype) to after the "}" closing it.
function functionRange(text, name) {
  const re = new RegExp(`^[A-Za-z_][^\\n;{}()]*[ *]${name}\\(`, 'gm');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const brace = text.indexOf('{', m.index);
    const semi = text.indexOf(';', m.index);
    if (brace < 0 || (semi >= 0 && semi < brace)) continue;  // a prototype
    const close = text.indexOf('\n}\n', brace);
    if (close < 0) break;
    return [m.index, close + 3];
  }
  throw new Error(`sqlite-hot-cold: no definition of ${name} in the amalgamation`);
}

export function splitHotCold(text) {
  const starts = markers(text);
  const names = new Set(starts.map(([, n]) => n));
  for (const want of [FIRST_SOURCE, ...HOT_FILES]) {
    if (!names.has(want)) throw new Error(`sqlite-hot-cold: no "Begin file ${want}" in the amalgamation`);
  }
  // Where the source file is a cold one: [start, end) ranges.
  const hotFiles = new Set(HOT_FILES);
  const coldFiles = [];
  let marking = false;
  for (let i = 0; i < starts.length; i++) {
    const [at, name] = starts[i];
    if (name === FIRST_SOURCE) marking = true;
    // A header included in the middle of a source file (vdbeInt.h in
    // status.c) declares functions of other files: never marked, so no hot
    // function's declaration carries the attribute.
    if (marking && name.endsWith('.c') && !hotFiles.has(name)) {
      coldFiles.push([at, i + 1 < starts.length ? starts[i + 1][0] : text.length]);
    }
  }
  const hotFunctions = HOT_FUNCTIONS.map((name) => functionRange(text, name));
  const inside = (pos, ranges) => ranges.some(([a, b]) => a <= pos && pos < b);
  const cold = (pos) => inside(pos, coldFiles) && !inside(pos, hotFunctions);
  const points = [...new Set([...coldFiles.flat(), ...hotFunctions.flat()])].sort((x, y) => x - y);
  let out = '';
  let from = 0;
  let state = false;
  for (const at of points) {
    const want = at < text.length && cold(at);
    if (want === state) continue;
    out += text.slice(from, at) + (want ? PUSH : POP);
    from = at;
    state = want;
  }
  out += text.slice(from);
  if (state) out += POP;
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const [input, output] = process.argv.slice(2);
  if (!input || !output) {
    console.error('usage: node scripts/sqlite-hot-cold.mjs SQLITE3_C OUT_C');
    process.exit(2);
  }
  try {
    const text = splitHotCold(readFileSync(input, 'latin1'));
    const tmp = `${output}.${process.pid}.tmp`;
    writeFileSync(tmp, text, 'latin1');
    renameSync(tmp, output);
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
}
