// The house limits (scripts/check-sizes.mjs): no file over 600 lines, no
// function over 80 in core/, agent/, server-shim/, wasm/ and web/. Two
// factory functions of the sql.js layer are still over and are held to their
// present size until they are split; anything else over fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check } from '../../scripts/check-sizes.mjs';

const NOT_SPLIT_YET = {
  'wasm/sqljs-api.mjs': { name: 'bindApi', lines: 168 },
  'wasm/sqljs-functions.mjs': { name: 'installUserFunctions', lines: 219 },
};

test('no file over 600 lines and no function over 80', () => {
  const problems = check().filter((p) => {
    const m = /^([^:]+):\d+: (\S+) is (\d+) lines/.exec(p);
    const known = m && NOT_SPLIT_YET[m[1]];
    return !(known && known.name === m[2] && Number(m[3]) <= known.lines);
  });
  assert.deepEqual(problems, []);
});
