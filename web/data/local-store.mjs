// The local mode's store: workflow database copies kept in this browser's
// Origin Private File System, opened by the WASM core inside the dedicated
// Worker (pulse-worker.mjs, reached through worker-client.mjs). The page only
// sends messages; it never blocks on SQL.
//
// Besides the worker's own list, a small record per copy (size, when it was
// imported, what it was imported from) is kept in localStorage; the worker's
// list stays the truth about which copies exist.
import { sqliteHeaderProblem } from '../sqlite-header.mjs';

const META_KEY = 'pulse.copies';

function readMeta() {
  try { return JSON.parse(localStorage.getItem(META_KEY) || '{}') || {}; } catch { return {}; }
}

function writeMeta(meta) {
  localStorage.setItem(META_KEY, JSON.stringify(meta));
}

export class LocalStore {
  constructor(client, info) {
    this.client = client;
    this.info = info;
  }

  static async open() {
    const { createPulseClient } = await import('../worker-client.mjs');
    const client = createPulseClient(new URL('../pulse-worker.mjs', import.meta.url));
    const info = await client.init();
    return new LocalStore(client, info);
  }

  // [{name, size, importedAt, source, workflow}], newest import first.
  async list() {
    const { copies } = await this.client.list();
    const meta = readMeta();
    const rows = copies.map((c) => ({
      name: c.name,
      size: c.size,
      importedAt: c.importedAt || (meta[c.name] && meta[c.name].importedAt) || null,
      source: (meta[c.name] && meta[c.name].source) || '',
      workflow: (meta[c.name] && meta[c.name].workflow) || '',
      checked: (meta[c.name] && meta[c.name].checked) || '',
    }));
    // Forget records of copies that are gone (deleted in another tab).
    const names = new Set(rows.map((r) => r.name));
    let changed = false;
    for (const k of Object.keys(meta)) if (!names.has(k)) { delete meta[k]; changed = true; }
    if (changed) writeMeta(meta);
    rows.sort((a, b) => String(b.importedAt || '').localeCompare(String(a.importedAt || '')) || a.name.localeCompare(b.name));
    return rows;
  }

  // Checks the file's header here (a clear reason at once, nothing sent),
  // then hands the File itself to the worker, which streams it into OPFS
  // (reporting progress) without a copy in this page; the worker checks the
  // header again and that the stored copy opens. A bad file is refused
  // before anything is stored, so the other copies are never touched.
  // `onPreview(check)`, when given, gets the goal check computed on the File
  // itself (the few pages it needs) before the copy is stored.
  async importFile(name, file, source, onProgress = () => {}, onPreview = null, nowSeconds = undefined) {
    const head = new Uint8Array(await file.slice(0, 100).arrayBuffer());
    const problem = sqliteHeaderProblem(head, file.size, `"${file.name}"`);
    if (problem) throw new Error(problem);
    onProgress(0, 'storing');
    performance.mark('pulse:import-start');
    await this.client.importFile(name, file, (loaded, total, msg) => {
      if (msg && msg.preview && onPreview) {
        performance.mark('pulse:preview-arrived');
        onPreview(msg.preview);
      }
      onProgress(total ? loaded / total : 0, 'storing');
    }, onPreview ? { method: 'goal.check', args: {}, now: nowSeconds } : undefined);
    performance.mark('pulse:import-done');
    const meta = readMeta();
    meta[name] = { size: file.size, importedAt: new Date().toISOString(), source };
    writeMeta(meta);
    onProgress(1, 'done');
  }

  // What the File is, before anything is stored (pulse-worker.mjs inspectFile).
  async inspect(file) {
    return this.client.inspectFile(file);
  }

  // The workflow name stored in the copy (its configuration snapshot).
  async rememberWorkflow(name, workflow) {
    const meta = readMeta();
    meta[name] = { ...(meta[name] || {}), workflow };
    writeMeta(meta);
  }

  async exportBytes(name) {
    const { bytes } = await this.client.export(name);
    return bytes;
  }

  async remove(name) {
    await this.client.delete(name);
    const meta = readMeta();
    delete meta[name];
    writeMeta(meta);
  }

  // SQLite's quick_check over the whole stored copy: 'ok' or the first
  // problem. Run after the cards are shown (a streamed import is checked
  // only by its header and its schema before that).
  async verify(name) {
    const out = await this.client.exec(name, 'PRAGMA quick_check(1)');
    const result = out && out[0] && out[0].values[0] ? String(out[0].values[0][0]) : 'no answer';
    const meta = readMeta();
    meta[name] = { ...(meta[name] || {}), checked: result };
    writeMeta(meta);
    return result;
  }

  // A read-only SQL query on one copy (sql.js exec result).
  async query(name, sql, params) {
    return this.client.exec(name, sql, params);
  }

  // One core API method on one copy, at `nowSeconds` (undefined: the clock).
  async call(name, method, args = {}, nowSeconds) {
    return this.client.call(name, method, args, nowSeconds);
  }
}
