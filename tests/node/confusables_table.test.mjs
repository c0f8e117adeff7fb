// core/autonomy/confusables_unicode.inc is Unicode's data, not a hand list: every
// character Unicode's confusables.txt (as the pinned npm package unhomoglyph
// ships it) maps to ASCII name characters is in it with that prototype, and
// the file is what scripts/gen_confusables.mjs makes from that data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT } from './helpers.mjs';
import { unicodeFolds } from '../../scripts/gen_confusables.mjs';

const require = createRequire(import.meta.url);

function readTable() {
  const text = readFileSync(join(ROOT, 'core', 'autonomy', 'confusables_unicode.inc'), 'utf8');
  const entries = [...text.matchAll(/\{0x([0-9A-F]+), "((?:[^"\\]|\\.)*)"\}/g)]
    .map(([, cp, to]) => [parseInt(cp, 16), to.replace(/\\\\/g, '\\')]);
  return entries;
}

test('the Unicode fold table holds every confusables.txt prototype that is ASCII, sorted, and as generated', () => {
  const table = readTable();
  assert.ok(table.length > 3000, `${table.length} entries`);
  for (let i = 1; i < table.length; i++) assert.ok(table[i - 1][0] < table[i][0], `sorted at ${table[i][0].toString(16)}`);
  const byCp = new Map(table);
  const data = require('unhomoglyph/data.json');
  let checked = 0;
  for (const [from, to] of Object.entries(data)) {
    const cps = [...from];
    if (cps.length !== 1) continue;
    const cp = cps[0].codePointAt(0);
    const proto = to.normalize('NFKD').replace(/\p{M}/gu, '');
    if (cp < 0x80 || !/^[A-Za-z0-9 _\-./:]{1,4}$/.test(proto)) continue;
    if ((cp >= 0xff01 && cp <= 0xff5e) || (cp >= 0x1d400 && cp <= 0x1d7ff)) continue;  // folded by arithmetic
    if (!byCp.has(cp)) continue;  // the short lists in confusables.cc (spaces, dashes, invisibles) come first
    assert.equal(byCp.get(cp), proto, `U+${cp.toString(16)}`);
    checked++;
  }
  assert.ok(checked > 800, `${checked} confusables.txt entries checked`);
  // Spot checks the guard relies on.
  assert.equal(byCp.get(0xe9), 'e');      // é (NFKD)
  assert.equal(byCp.get(0x217e), 'd');    // ⅾ SMALL ROMAN NUMERAL FIVE HUNDRED
  assert.equal(byCp.get(0x13a0), 'D');    // Ꭰ CHEROKEE LETTER A
  assert.equal(byCp.get(0x301), '');      // a combining mark is dropped
  // The generator makes exactly this table from the same data.
  const made = unicodeFolds();
  assert.equal(made.length, table.length);
  assert.deepEqual(made, table);
});
