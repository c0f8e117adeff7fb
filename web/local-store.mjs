// The local mode's store: workflow database copies kept in this browser's
// Origin Private File System, opened by the WASM core inside the dedicated
// Worker (pulse-worker.mjs, reached through worker-client.mjs). The page only
// sends messages; it never blocks on SQL.
//
// Besides the worker's own list, a small record per copy (size, when it was
// imported, what it was imported from) is kept in localStorage; the worker's
// list stays the truth about which copies exist.
import { checkSqliteHeader } from './format.mjs';

const META_KEY = 'pulse.copies';

function readMeta() {
  try { return JSON.parse(localStorage.getItem(META_KEY) || '{}') || {}; } catch { return {}; }
}

function writeMeta(meta) {
  localStorage.setItem(META_KEY, JSON.stringify(meta));
}

export class LocalStore {
  constructor(client) {
    this.client = client;
  }

  static async open() {
    const mod = await import('./worker-client.mjs');
    const make = mod.createWorkerClient || mod.createPulseClient || mod.createClient || mod.default;
    if (typeof make !== 'function') throw new Error('worker-client.mjs: no client factory exported');
    const client = await make(new URL('./pulse-worker.mjs', import.meta.url));
    if (client.init) await client.init();
    return new LocalStore(client);
  }

  // [{name, size, importedAt, source}], newest import first.
  async list() {
    const listed = await this.client.list();
    const meta = readMeta();
    const rows = (Array.isArray(listed) ? listed : (listed && listed.copies) || []).map((c) => {
      const name = typeof c === 'string' ? c : c.name;
      const m = meta[name] || {};
      return {
        name,
        size: typeof c === 'object' && c.size !== undefined ? c.size : m.size,
        importedAt: m.importedAt || (typeof c === 'object' ? c.importedAt || c.imported_at : undefined),
        source: m.source || '',
      };
    });
    // Forget records of copies that are gone (deleted in another tab).
    const names = new Set(rows.map((r) => r.name));
    let changed = false;
    for (const k of Object.keys(meta)) if (!names.has(k)) { delete meta[k]; changed = true; }
    if (changed) writeMeta(meta);
    rows.sort((a, b) => String(b.importedAt || '').localeCompare(String(a.importedAt || '')) || a.name.localeCompare(b.name));
    return rows;
  }

  // Reads `file` (progress 0..0.5), checks it is a whole SQLite database,
  // then hands the bytes to the worker (progress 0.5..1). A bad file is
  // refused before anything is written, so other copies are never touched.
  async importFile(name, file, source, onProgress = () => {}) {
    const head = new Uint8Array(await file.slice(0, 100).arrayBuffer());
    const problem = checkSqliteHeader(head, file.size, file.name);
    if (problem) throw new Error(problem);
    const bytes = await readWithProgress(file, (f) => onProgress(f * 0.5, 'reading'));
    // A database in WAL mode (header bytes 18-19 = 2) is switched to the
    // rollback journal in the copy: the browser copy has no -wal/-shm files.
    if (bytes[18] === 2 && bytes[19] === 2) { bytes[18] = 1; bytes[19] = 1; }
    await this.client.import(name, bytes, (p) => {
      const f = typeof p === 'number' ? (p > 1 ? p / bytes.length : p) : (p && p.total ? p.done / p.total : 0);
      onProgress(0.5 + Math.min(1, f) * 0.5, 'storing');
    });
    const meta = readMeta();
    meta[name] = { size: file.size, importedAt: new Date().toISOString(), source };
    writeMeta(meta);
    onProgress(1, 'done');
  }

  async exportBytes(name) {
    const out = await this.client.export(name);
    return out instanceof Uint8Array ? out : new Uint8Array(out.bytes || out);
  }

  async remove(name) {
    await this.client.delete(name);
    const meta = readMeta();
    delete meta[name];
    writeMeta(meta);
  }

  // One core API method on one copy, at `nowSeconds` (undefined: the clock).
  async call(name, method, args = {}, nowSeconds) {
    return this.client.call(name, method, args, nowSeconds);
  }
}

async function readWithProgress(file, onProgress) {
  const total = file.size;
  if (!file.stream || total < 4 * 1024 * 1024) {
    const buf = new Uint8Array(await file.arrayBuffer());
    onProgress(1);
    return buf;
  }
  const out = new Uint8Array(total);
  const reader = file.stream().getReader();
  let done = 0;
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    out.set(value, done);
    done += value.length;
    onProgress(done / total);
  }
  return out;
}
