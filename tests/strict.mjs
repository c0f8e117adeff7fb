// No silent skips. A test that cannot run here (a tool or a build missing)
// says why; in strict mode (CI=true, which CI sets, or PULSE_STRICT=1) that is
// a failure naming what was missing, never a quiet pass.
//
// Two guards, both in this module:
//  - skipUnless(file, missing): the `skip` option of a suite's tests. Outside
//    strict mode the reason; in strict mode it also registers a failing test
//    named after what is missing, so even `node --test one.test.mjs` fails.
//  - the default export, a node:test reporter (package.json's `npm test` runs
//    it beside the spec reporter): in strict mode any test that ended skipped
//    or todo (an option, a t.skip() anywhere) is listed and the run exits 1.
import { test } from 'node:test';
import { existsSync } from 'node:fs';
import { relative } from 'node:path';

// Strict when CI is set to a true value (CI=true, CI=1) or PULSE_STRICT=1.
export function strictFrom(env) {
  const on = (v) => /^(1|true|yes)$/i.test(String(v || '').trim());
  return on(env.CI) || on(env.PULSE_STRICT);
}

export const STRICT = strictFrom(process.env);
const WHY_STRICT = process.env.PULSE_STRICT ? 'PULSE_STRICT=1' : 'CI=true';

// `[[present, what is missing and how to get it], ...]` → the missing ones.
export function missingOf(checks) {
  return checks.filter(([present]) => !present).map(([, what]) => what);
}

// A file's path, for the reason `present` asks about.
export function fileNeed(path, hint) {
  return [existsSync(path), `${path} is missing${hint ? ` (${hint})` : ''}`];
}

// The `skip` option for the tests of `file` (import.meta.url or a path) that
// need what `missing` lists: false when nothing is missing.
export function skipUnless(file, missing) {
  if (!missing.length) return false;
  const reason = `cannot run: ${missing.join('; ')}`;
  if (STRICT) {
    const where = relative(process.cwd(), file.startsWith('file:') ? new URL(file).pathname : file);
    test(`${where}: ${reason}`, () => {
      throw new Error(`strict mode (${WHY_STRICT}): ${where} ${reason}`);
    });
  }
  return reason;
}

// The reporter: collects every skipped or todo test; in strict mode, names
// them at the end and makes the run fail.
export default async function* skipReporter(source) {
  const skipped = [];
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { skip, todo, name, file } = event.data;
    if (skip === undefined && todo === undefined) continue;
    const why = skip !== undefined ? skip : `todo ${todo}`;
    skipped.push(`  ${file ? `${relative(process.cwd(), file)}: ` : ''}${name}${why === true ? '' : ` (${why})`}`);
  }
  if (!skipped.length) return;
  if (STRICT) {
    process.exitCode = 1;
    yield `\nstrict mode (${WHY_STRICT}): ${skipped.length} test(s) skipped, which fails the run:\n${skipped.join('\n')}\n`;
  } else {
    yield `\n${skipped.length} test(s) skipped (CI=true or PULSE_STRICT=1 makes this a failure):\n${skipped.join('\n')}\n`;
  }
}
