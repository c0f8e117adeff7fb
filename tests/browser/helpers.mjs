// Shared helpers for the real-browser suites: Debian's Chromium driven by
// npm playwright-core on a persistent temp profile, the static server on an
// ephemeral loopback port, and screenshots a person can look at (saved in
// the test's temp dir and copied to tests/artifacts/, which git ignores).
//
// Every page of every browser launched here is watched: a console error or
// an uncaught page error fails the test it happened in (the afterEach hook
// below, which applies to every test of a file that imports this module).
// A test that provokes an error on purpose (a refused token's 401) names it
// with allowConsoleErrors.
import { afterEach } from 'node:test';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startStaticServer } from '../../scripts/serve-static.mjs';
import { PULSE_BIN, WASM_DIR } from '../node/helpers.mjs';
import { fileNeed, missingOf, skipUnless } from '../strict.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// The browser every suite drives: PULSE_CHROMIUM when set, else Debian's.
export const CHROMIUM = process.env.PULSE_CHROMIUM || '/usr/bin/chromium';
export const ARTIFACTS = join(ROOT, 'tests', 'artifacts');
export { startStaticServer };

// What a browser suite needs and does not find: the browser, the WASM build
// and, with `pulse`, the native program ([] when it can run).
export function browserMissing({ pulse = false } = {}) {
  return missingOf([
    [existsSync(CHROMIUM), `the browser ${CHROMIUM} is missing (${process.env.PULSE_CHROMIUM
      ? 'PULSE_CHROMIUM names it' : 'apt-get install chromium, as scripts/setup.sh does, or set PULSE_CHROMIUM'})`],
    fileNeed(join(WASM_DIR, 'pulse.wasm'), 'run scripts/setup.sh'),
    ...(pulse ? [fileNeed(PULSE_BIN, 'run scripts/setup.sh')] : []),
  ]);
}

// The `skip` option of a browser suite's tests (tests/strict.mjs: in strict
// mode a missing need is a failing test naming it).
export function browserSkip(file, options = {}) {
  return skipUnless(file, browserMissing(options));
}

export function makeTempDir(prefix = 'pulse-browser-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

// The browsers launched by this process, each with what its pages reported.
const launched = [];

function watchPage(ctx, page) {
  const where = () => { try { return page.url(); } catch { return ''; } };
  page.on('pageerror', (e) => ctx.pulseProblems.push(`page error at ${where()}: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const text = `${m.text()}${m.location() && m.location().url ? ` (${m.location().url})` : ''}`;
    if (ctx.pulseAllowed.some((re) => re.test(text))) return;
    ctx.pulseProblems.push(`console error at ${where()}: ${text}`);
  });
}

// Console errors matching `pattern` are expected in `ctx` (a refused request
// the test makes on purpose) until the returned function is called.
export function allowConsoleErrors(ctx, pattern) {
  ctx.pulseAllowed.push(pattern);
  return () => { ctx.pulseAllowed = ctx.pulseAllowed.filter((p) => p !== pattern); };
}

// What the pages reported since the last call, cleared.
export function takeBrowserProblems() {
  const out = [];
  for (const ctx of launched) out.push(...ctx.pulseProblems.splice(0));
  return out;
}

afterEach(() => {
  const problems = takeBrowserProblems();
  if (problems.length) throw new Error(`the browser reported ${problems.length === 1 ? 'an error' : `${problems.length} errors`}:\n${problems.join('\n')}`);
});

// A persistent context: OPFS survives closing it and launching again on
// the same profileDir (a browser restart).
export async function launchBrowser(profileDir) {
  const ctx = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  ctx.pulseProblems = [];
  ctx.pulseAllowed = [];
  launched.push(ctx);
  for (const page of ctx.pages()) watchPage(ctx, page);
  ctx.on('page', (page) => watchPage(ctx, page));
  return ctx;
}

// A folded card of the workflow page (the cards below What needs you and the
// goal card) opened as a reader's Show does it; nothing when it is open.
export async function openCard(page, id) {
  const toggle = page.locator(`#${id} > .card-head .fold-toggle`);
  await toggle.waitFor();
  if (await toggle.getAttribute('aria-expanded') === 'false') await toggle.click();
  await page.locator(`#${id} > .card-head .fold-toggle[aria-expanded="true"]`).waitFor();
}

let shotDir = null;
// Saves a full-page screenshot as <name>.png in a temp dir and copies it to
// tests/artifacts/; returns the artifact's path.
export async function screenshot(page, name) {
  if (!shotDir) shotDir = mkdtempSync(join(tmpdir(), 'pulse-shots-'));
  const file = join(shotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  mkdirSync(ARTIFACTS, { recursive: true });
  const artifact = join(ARTIFACTS, `${name}.png`);
  copyFileSync(file, artifact);
  return artifact;
}

// `pulse serve` for the tab on loopback (no tick; web/ and the WASM build
// served), with `extra` flags: {server, url} once it prints its address
// (a workspace of many new workflows takes longer: `startTimeoutMs`;
// `webRoot`: another tab than web/).
export async function serveTab(ws, extra = [], { startTimeoutMs = 20000, webRoot = join(ROOT, 'web') } = {}) {
  const server = spawn(PULSE_BIN, ['serve', '--workspace', ws, '--host', '127.0.0.1', '--port', '0', '--no-tick', ...extra,
    '--web-root', webRoot, '--wasm-root', WASM_DIR], { stdio: ['ignore', 'pipe', 'pipe'] });
  server.stderr.on('data', () => {});
  const url = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: server.stdout });
    const timer = setTimeout(() => { server.kill('SIGKILL'); reject(new Error('pulse serve did not print its address')); }, startTimeoutMs);
    lines.on('line', (line) => {
      const m = /serving (http:\/\/[^/\s]+)/.exec(line);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    server.once('exit', (code) => reject(new Error(`pulse serve exited with ${code}`)));
  });
  return { server, url };
}

// Ends a server serveTab started (if it still runs).
export async function stopTab(server) {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
}
