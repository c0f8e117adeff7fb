// What the benches share: where the module and npm sql.js are, the
// command-line numbers (--rounds, --rows), the median, and a generated
// workflow database for the goal-check benches.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PULSE_BIN } from '../tests/node/helpers.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const WASM_DIR = process.env.PULSE_WASM_DIR || join(ROOT, 'build', 'wasm');
export const SQLJS_DIR = join(ROOT, 'node_modules', 'sql.js', 'dist');
export const require = createRequire(import.meta.url);

// `--name N` from the command line, or `fallback`.
export function numberArg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

// The goal-check benches' clock (the seed's day).
export const BENCH_NOW = '2026-10-07T12:00:00Z';

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Runs `cmd` to its end; its stdout, or an Error with its stderr.
export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 26, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}\n${r.stderr}`);
  return r.stdout;
}

export const ms = (ns) => Number(ns) / 1e6;

// A workflow `bench` in a new temp dir: `pulse check` creates its database
// with the schema, then python3's sqlite3 runs `body` on that file in one
// transaction (generated history: a recursive CTE makes a million rows in
// seconds). The file is synced before any timing, so the kernel's write-back
// of hundreds of MB does not land inside them. The caller removes `dir`.
export function benchWorkflow(prefix, workflow, body) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const wfDir = join(dir, 'Workflow', 'bench');
  mkdirSync(wfDir, { recursive: true });
  writeFileSync(join(wfDir, 'workflow.json'), JSON.stringify(workflow));
  const checkArgs = ['check', '--workspace', dir, '--workflow', 'bench', '--now', BENCH_NOW, '--json'];
  const infoArgs = ['info', '--workspace', dir, '--workflow', 'bench', '--json'];
  run(PULSE_BIN, checkArgs);
  const dbPath = join(wfDir, 'db', 'db.sqlite');
  const sql = `PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;\nBEGIN;\n${body}\nCOMMIT;\nPRAGMA wal_checkpoint(TRUNCATE);\nANALYZE;\n`;
  const t0 = process.hrtime.bigint();
  run('python3', ['-c', 'import sqlite3,sys\nc=sqlite3.connect(sys.argv[1], isolation_level=None)\nc.executescript(sys.stdin.read())\nc.close()', dbPath],
    { input: sql });
  const genMs = ms(process.hrtime.bigint() - t0);
  spawnSync('sync');
  return { dir, dbPath, checkArgs, infoArgs, genMs };
}
