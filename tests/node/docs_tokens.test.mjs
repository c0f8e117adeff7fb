// No example in the README or docs/ puts a token on a command line: every
// local process can read another's /proc/<pid>/cmdline, and a runner that
// found the owner's `curl -H "Authorization: Bearer ..."` there answered a
// decision as the owner (issue #32). Examples send it from a file
// (`curl -H @FILE`, `pulse token rotate --header-file`) instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f))];

// A command in an example: a line of a fenced block, or inline code that
// starts with a program name.
function commands(text) {
  const out = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*```/.test(line)) { fenced = !fenced; return; }
    if (fenced) out.push([i + 1, line]);
    for (const m of line.matchAll(/`((?:curl|wget|http|pulse|node|python3?)\s[^`]*)`/g)) out.push([i + 1, m[1]]);
  });
  return out;
}

test('no doc example puts a bearer token on a command line', () => {
  assert.ok(DOCS.length > 10, 'the docs were found');
  const found = [];
  for (const file of DOCS) {
    for (const [line, cmd] of commands(readFileSync(join(ROOT, file), 'utf8'))) {
      if (/Authorization:\s*Bearer/i.test(cmd) && /\b(curl|wget|http)\b/.test(cmd)) found.push(`${file}:${line}: ${cmd.trim()}`);
      if (/\bBearer\s+\$/.test(cmd)) found.push(`${file}:${line}: ${cmd.trim()}`);
    }
  }
  assert.deepEqual(found, []);
});

test('the owner-token examples use a header file', () => {
  const asks = readFileSync(join(ROOT, 'docs', 'asks.md'), 'utf8');
  assert.match(asks, /curl -X POST -H @\S+ http/);
  assert.match(readFileSync(join(ROOT, 'docs', 'server.md'), 'utf8'), /--header-file/);
});
