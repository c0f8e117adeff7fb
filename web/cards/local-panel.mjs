// The local mode's side panel: importing a workflow database (a file, a
// folder, or a drop) into this browser, and the list of copies with their
// Open / Export / Delete actions. The copies live in data/local-store.mjs.
import { html } from 'htm/preact';
import { useState, useRef } from 'preact/hooks';
import { formatBytes, formatTime, copyNameFor } from '../format.mjs';
import { sqliteHeaderProblem } from '../sqlite-header.mjs';

const errorText = (err) => err.message || err;

function findDbInFolder(files) {
  const list = [...files];
  const best = list.filter((f) => /(^|\/)db\/db\.sqlite$/.test(f.webkitRelativePath || f.name))
    .sort((a, b) => (a.webkitRelativePath || '').length - (b.webkitRelativePath || '').length)[0];
  const top = list.length ? (list[0].webkitRelativePath || '').split('/')[0] : '';
  const wal = best && list.find((f) => (f.webkitRelativePath || '') === `${best.webkitRelativePath}-wal` && f.size > 0);
  return { file: best, folder: top, wal: !!wal };
}

// A dropped folder: look for <folder>/db/db.sqlite through the entry API.
function dbFromDirectoryEntry(entry) {
  return new Promise((resolve, reject) => {
    entry.getFile('db/db.sqlite', {}, (fe) => fe.file(resolve, reject),
      () => reject(new Error(`folder "${entry.name}" has no db/db.sqlite (is it a workflow folder?)`)));
  });
}

// Imports one file as a new copy. The File is first read (never written)
// to learn what it is: a database without Pulse's tables is refused and
// named as such; a copy gets its workflow's name. Then progress, the goal
// status preview while it is stored, SQLite's check of the stored copy (a
// damaged one is removed again), and opening it.
function useImport({ whenReady, copies, onImported, onVerified, onPreview, nowSeconds, setError, setInfo }) {
  const [progress, setProgress] = useState(null);
  const refuse = (text) => setError(`Not imported: ${text} Your other copies are unchanged.`);
  const importOne = async (file, baseName, source, warn) => {
    setError('');
    setInfo('');
    setProgress({ name: baseName, fraction: 0, phase: 'reading', size: file.size });
    try {
      // A file chosen before the worker is up waits for it.
      const store = await whenReady();
      const head = new Uint8Array(await file.slice(0, 100).arrayBuffer());
      const problem = sqliteHeaderProblem(head, file.size, `"${file.name}"`);
      if (problem) { refuse(`${problem}.`); return; }
      const what = await store.inspect(file);
      if (!what.readable) { refuse(`"${file.name}" is damaged: SQLite cannot read its tables, so nothing was stored.`); return; }
      if (!what.pulse) {
        refuse(`"${file.name}" is a SQLite database but not a Pulse workflow database (it has ${what.tables === 1 ? 'one table' : `${what.tables} tables`}, none of them Pulse's); nothing was stored and the file is unchanged.`);
        return;
      }
      const name = copyNameFor(what.workflow || baseName, copies.map((c) => c.name));
      await store.importFile(name, file, source, (fraction, phase) => setProgress({ name, fraction, phase, size: file.size }),
        (check) => onPreview({ name, check }), nowSeconds);
      if (what.workflow) await store.rememberWorkflow(name, what.workflow);
      setProgress({ name, fraction: 1, phase: 'checking', size: file.size });
      const result = await store.verify(name);
      if (result !== 'ok') {
        await store.remove(name);
        await onVerified();
        refuse(`"${file.name}" is damaged (SQLite's integrity check failed on it), so the copy was removed again.`);
        return;
      }
      setInfo(`Imported ${name} (${formatBytes(file.size)}).${warn ? ` ${warn}` : ''}`);
      await onImported(name);
    } catch (err) {
      refuse(`${errorText(err)}.`.replace(/\.\.$/, '.'));
    } finally {
      setProgress(null);
      onPreview(null);
    }
  };
  return { progress, importOne };
}

// The three ways in: a file, a folder, or a drop of either.
function importHandlers(importOne, setError, setDragging) {
  const onFile = (e) => {
    performance.mark('pulse:file-chosen');
    const file = e.target.files && e.target.files[0];
    e.target.value = '';
    if (file) importOne(file, file.name, file.name);
  };
  const onFolder = (e) => {
    const { file, folder, wal } = findDbInFolder(e.target.files || []);
    e.target.value = '';
    if (!file) { setError(`Not imported: folder "${folder || '?'}" has no db/db.sqlite (is it a workflow folder?)`); return; }
    importOne(file, folder || 'workflow', `${folder}/db/db.sqlite`,
      wal ? 'The folder also has a db.sqlite-wal file: changes not yet checkpointed are not in this copy.' : '');
  };
  const onDrop = async (e) => {
    e.preventDefault();
    setDragging(false);
    const item = e.dataTransfer.items && e.dataTransfer.items[0];
    const entry = item && item.webkitGetAsEntry ? item.webkitGetAsEntry() : null;
    try {
      if (entry && entry.isDirectory) {
        const file = await dbFromDirectoryEntry(entry);
        await importOne(file, entry.name, `${entry.name}/db/db.sqlite`);
        return;
      }
    } catch (err) {
      setError(`Not imported: ${errorText(err)}`);
      return;
    }
    const file = e.dataTransfer.files && e.dataTransfer.files[0];
    if (file) importOne(file, file.name, file.name);
  };
  return { onFile, onFolder, onDrop };
}

// Export (a download of the copy's bytes) and delete.
function copyActions(store, onDeleted, setError, setInfo, setConfirming) {
  const doExport = async (name) => {
    setError('');
    try {
      const bytes = await store.exportBytes(name);
      const url = URL.createObjectURL(new Blob([bytes], { type: 'application/vnd.sqlite3' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = `${name}.db.sqlite`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
      setInfo(`Exported ${name} (${formatBytes(bytes.length)}).`);
    } catch (err) {
      setError(`Not exported: ${errorText(err)}`);
    }
  };
  const doDelete = async (name) => {
    setConfirming('');
    setError('');
    try {
      await store.remove(name);
      setInfo(`Deleted ${name}.`);
      await onDeleted(name);
    } catch (err) {
      setError(`Not deleted: ${errorText(err)}`);
    }
  };
  return { doExport, doDelete };
}

function Dropzone({ store, progress, dragging, setDragging, handlers }) {
  const fileInput = useRef(null);
  const folderInput = useRef(null);
  return html`<div class=${`dropzone ${dragging ? 'dragging' : ''}`}
      onDragOver=${(e) => { e.preventDefault(); setDragging(true); }}
      onDragLeave=${() => setDragging(false)} onDrop=${handlers.onDrop}>
      <p><strong>Open a copy</strong> of a workflow database: drop a <code>db.sqlite</code> or a workflow folder here, or</p>
      <div class="row">
        <button type="button" class="primary" id="choose-file" disabled=${!store || !!progress}
          onClick=${() => fileInput.current.click()}>Choose db.sqlite…</button>
        <button type="button" id="choose-folder" disabled=${!store || !!progress}
          onClick=${() => folderInput.current.click()}>Choose workflow folder…</button>
      </div>
      <input type="file" ref=${fileInput} class="hidden-input" id="file-input" tabindex="-1" aria-hidden="true"
        accept=".sqlite,.sqlite3,.db,application/vnd.sqlite3,application/x-sqlite3" onChange=${handlers.onFile} />
      <input type="file" ref=${folderInput} class="hidden-input" id="folder-input" tabindex="-1" aria-hidden="true"
        webkitdirectory=${true} directory="" onChange=${handlers.onFolder} />
      ${!store ? html`<p class="muted">Starting the database worker…</p>` : null}
    </div>`;
}

function ImportProgress({ progress }) {
  const percent = Math.round(progress.fraction * 100);
  return html`<div class="progress" role="status">
      <label for="import-progress">${`${progress.phase === 'reading' ? 'Reading' : progress.phase === 'checking' ? 'Checking' : 'Storing'} ${progress.name} (${formatBytes(progress.size)})… ${percent}%`}</label>
      <progress id="import-progress" max="100" value=${percent}></progress>
    </div>`;
}

function CopyItem({ c, openName, confirming, setConfirming, onOpen, actions }) {
  return html`<li class=${`copy ${c.name === openName ? 'open' : ''}`} data-name=${c.name}>
        <div class="copy-name">${c.name}${c.name === openName ? html` <span class="tag">open</span>` : null}</div>
        <div class="copy-meta muted">${c.workflow && c.workflow !== c.name ? html`workflow <strong>${c.workflow}</strong> · ` : null}${formatBytes(c.size)} · imported ${c.importedAt ? `${formatTime(c.importedAt)} UTC` : '—'}
          ${c.checked === 'ok' ? html` · <span title="SQLite quick_check passed">checked ✓</span>` : c.checked ? html` · <span class="failed">damaged</span>` : null}</div>
        ${confirming === c.name
          ? html`<div class="row"><span>Delete ${c.name}?</span>
              <button type="button" class="danger" onClick=${() => actions.doDelete(c.name)}>Delete</button>
              <button type="button" onClick=${() => setConfirming('')}>Keep</button></div>`
          : html`<div class="row">
              <button type="button" onClick=${() => onOpen(c.name)} aria-label=${`Open ${c.name}`}>Open</button>
              <button type="button" onClick=${() => actions.doExport(c.name)} aria-label=${`Export ${c.name}`}>Export</button>
              <button type="button" onClick=${() => setConfirming(c.name)} aria-label=${`Delete ${c.name}`}>Delete</button>
            </div>`}
      </li>`;
}

export function LocalPanel({ store, whenReady, storeError, copies, openName, onOpen, onImported, onDeleted, onVerified, onPreview, nowSeconds }) {
  const [error, setError] = useState('');
  const [info, setInfo] = useState('');
  const [dragging, setDragging] = useState(false);
  const [confirming, setConfirming] = useState('');
  const { progress, importOne } = useImport({ whenReady, copies, onImported, onVerified, onPreview, nowSeconds, setError, setInfo });
  const handlers = importHandlers(importOne, setError, setDragging);
  const actions = copyActions(store, onDeleted, setError, setInfo, setConfirming);

  if (storeError) {
    return html`<div class="panel"><p class="card-error" role="alert">Local copies are not available here: ${storeError}</p></div>`;
  }
  return html`<div class="panel local-panel">
    <${Dropzone} store=${store} progress=${progress} dragging=${dragging} setDragging=${setDragging} handlers=${handlers} />
    ${progress ? html`<${ImportProgress} progress=${progress} />` : null}
    <div role="alert" class="import-error">${error}</div>
    <div role="status" class="import-info">${info}</div>
    <h2 class="panel-title">Copies in this browser</h2>
    ${copies.length === 0 ? html`<p class="muted">No copies yet.</p>` : html`<ul class="copies">
      ${copies.map((c) => html`<${CopyItem} key=${c.name} c=${c} openName=${openName} confirming=${confirming}
        setConfirming=${setConfirming} onOpen=${onOpen} actions=${actions} />`)}
    </ul>`}
  </div>`;
}
