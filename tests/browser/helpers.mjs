// Shared helpers for the real-browser suites: Debian's Chromium driven by
// npm playwright-core on a persistent temp profile, the static server on an
// ephemeral loopback port, and screenshots a person can look at (saved in
// the test's temp dir and copied to tests/artifacts/, which git ignores).
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startStaticServer } from '../../scripts/serve-static.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CHROMIUM = process.env.PULSE_CHROMIUM || '/usr/bin/chromium';
export const ARTIFACTS = join(ROOT, 'tests', 'artifacts');
export { startStaticServer };

// Why a browser suite would be skipped, or null when it can run.
export function browserUnavailable() {
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} is missing (apt-get install chromium; scripts/setup.sh does)`;
  if (!existsSync(join(ROOT, 'build', 'wasm', 'pulse.wasm'))) return 'build/wasm/pulse.wasm is missing (run scripts/setup.sh)';
  return null;
}

export function makeTempDir(prefix = 'pulse-browser-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

// A persistent context: OPFS survives closing it and launching again on
// the same profileDir (a browser restart).
export function launchBrowser(profileDir) {
  return chromium.launchPersistentContext(profileDir, {
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
