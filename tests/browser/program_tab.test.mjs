// The tab on a server whose Pulse is a preset program (--runner claude) and
// whose Builder chat is another (--builder codex), on a machine where neither
// is installed: the server-mode banner says so in the line each turn would
// fail with, naming the program and how to install it. Real `pulse serve`,
// real headless Chromium; screenshot tests/artifacts/program_tab.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startServer, makeTempDir, setNow, buildSubstack } from '../server/helpers.mjs';
import { browserSkip, launchBrowser, screenshot } from './helpers.mjs';
import { vendorWeb } from '../../scripts/vendor-web.mjs';

test('the banner says which program thinks for Pulse and is the Builder chat, and that neither is installed, with how to install it', { skip: browserSkip(import.meta.url, { pulse: true }), timeout: 120000 }, async () => {
  vendorWeb();
  const tmp = makeTempDir('pulse-program-tab-');
  buildSubstack(join(tmp.dir, 'ws'));
  setNow(join(tmp.dir, 'now'), '2026-10-07T12:00:00Z');
  // A PATH with neither program on it.
  const server = await startServer(join(tmp.dir, 'ws'), ['--no-tick', '--now-file', join(tmp.dir, 'now'), '--runner', 'claude',
    '--builder', 'codex'], { env: { PATH: '/usr/bin:/bin' } });
  const browser = await launchBrowser(join(tmp.dir, 'profile'));
  try {
    const page = await browser.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}?nosw#/w/substack`);
    const banner = page.locator('#mode-banner #thinks-with');
    await banner.waitFor({ timeout: 15000 });
    const text = (await banner.innerText()).replace(/\s+/g, ' ').trim();
    assert.match(text, /^--runner claude: Claude Code is not installed: no "claude" program on the server's PATH \(install it with `npm install -g @anthropic-ai\/claude-code@2\.1\.332`/);
    assert.match(text, /--builder codex: Codex is not installed: .*`npm install -g @openai\/codex@0\.171\.0`/);
    await screenshot(page, 'program_tab');
    await page.close();
  } finally {
    await browser.close();
    await server.stop();
    tmp.cleanup();
  }
});
