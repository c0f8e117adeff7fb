// bench/anchors.mjs's worker in Chromium: one operation on one OPFS pool,
// Pulse's (wasm/opfs-pool.mjs) or the official @sqlite.org/sqlite-wasm's
// opfs-sahpool, in a fresh dedicated worker as a page would have it (the
// module loaded before the clock starts). `?impl=pulse|official`; the
// message {op} is one of:
//   reset    removes the pool's directory (nothing timed)
//   open     opens the pool: on an empty directory (first open) or on the
//            one the last worker left (after a reload)
//   import   opens the pool, then times importing `/anchor-data/db.sqlite`'s
//            bytes as a copy and opening it (the schema read); the copy stays
// Answers {ms, files, ...} or {error}. Every pool is closed before the answer,
// as a closing tab would, so the next worker finds the files free.
const impl = new URL(self.location.href).searchParams.get('impl');
const DIR = { pulse: 'anchor-pulse', official: '.anchor-official' }[impl];
const NAME = 'anchor.sqlite';

async function loadPulse() {
  const { initPulse } = await import('/wasm/sqljs-api.mjs');
  const { openOpfsPool } = await import('/wasm/opfs-pool.mjs');
  const api = await initPulse();
  return {
    version: new api.Pulse(null).call('pulse.version').sqlite,
    async open() {
      const pool = await openOpfsPool(api, { directory: DIR });
      return {
        files: () => pool.slots.length,
        importDb: (bytes) => pool.importDb(NAME, bytes),
        openCopy: async () => {
          const db = await pool.openDb(NAME);
          db.exec('SELECT count(*) FROM sqlite_schema');
        },
        // What the Pulse worker runs once the import has answered.
        check: () => pool.checkCopy(NAME),
        close: () => pool.close(),
      };
    },
  };
}

async function loadOfficial() {
  const { default: init } = await import('/official/index.mjs');
  const sqlite3 = await init({ print: () => {}, printErr: () => {} });
  return {
    version: sqlite3.version.libVersion,
    async open() {
      const pool = await sqlite3.installOpfsSAHPoolVfs({ name: 'anchor-official', directory: DIR });
      let db = null;
      return {
        files: () => pool.getCapacity(),
        importDb: (bytes) => pool.importDb(NAME, bytes),
        openCopy: async () => {
          db = new pool.OpfsSAHPoolDb(NAME);
          db.exec('SELECT count(*) FROM sqlite_schema');
        },
        check: null,
        close: async () => {
          if (db) db.close();
          await pool.pauseVfs();
        },
      };
    },
  };
}

async function removeDir() {
  const root = await navigator.storage.getDirectory();
  await root.removeEntry(DIR, { recursive: true }).catch((e) => {
    if (e.name !== 'NotFoundError') throw e;
  });
}

self.onmessage = async (event) => {
  const { op } = event.data;
  try {
    if (op === 'reset') {
      await removeDir();
      self.postMessage({ ok: true });
      return;
    }
    const mod = impl === 'pulse' ? await loadPulse() : await loadOfficial();
    if (op === 'open') {
      const t0 = performance.now();
      const pool = await mod.open();
      const ms = performance.now() - t0;
      const files = pool.files();
      await pool.close();
      self.postMessage({ ms, files, sqlite: mod.version });
      return;
    }
    if (op === 'import') {
      const bytes = new Uint8Array(await (await fetch('/anchor-data/db.sqlite')).arrayBuffer());
      const pool = await mod.open();
      const t0 = performance.now();
      await pool.importDb(bytes);
      await pool.openCopy();
      const ms = performance.now() - t0;
      let checkMs = null;
      if (pool.check) {
        const c0 = performance.now();
        const result = await pool.check();
        checkMs = performance.now() - c0;
        if (!result.ok) throw new Error(`the imported copy fails its check: ${result.problem}`);
      }
      const files = pool.files();
      await pool.close();
      self.postMessage({ ms, checkMs, files, size: bytes.length });
      return;
    }
    throw new Error(`unknown op ${op}`);
  } catch (e) {
    self.postMessage({ error: `${impl} ${op}: ${e && e.message ? e.message : e}` });
  }
};
