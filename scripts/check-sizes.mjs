#!/usr/bin/env node
// The house limits on code size: no source file over 600 lines and no
// function over 80, in the project's own code (core/, agent/, server-shim/,
// wasm/, web/; vendored files are left out). Prints one line per violation
// and exits 1 when there is any; tests/node/code_sizes.test.mjs runs it.
//
//   node scripts/check-sizes.mjs [--max-file 600] [--max-function 80] [dir ...]
//
// A function is counted from the line its signature starts on to the line of
// its closing brace. Nested functions (lambdas, callbacks) count towards the
// function that holds them; a class or namespace body is not a function, its
// methods are.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIRS = ['core', 'agent', 'server-shim', 'wasm', 'web'];
// Vendored unchanged: their size is upstream's; web/dist/ is the tab's
// bundle, generated from web/'s modules (scripts/bundle-web.mjs).
const VENDORED = [/^wasm\/sqlite\/extension-functions\.c$/, /^web\/vendor\//, /^web\/dist\//];
const SOURCE = /\.(cc|h|c|mjs|js)$/;

// Blanks out comments, strings, template text and regular expressions
// (keeping line breaks), so only code braces remain.
export function codeOnly(text, js) {
  let out = '';
  let i = 0;
  const n = text.length;
  const templ = [];  // brace depth at each open `${`
  let depth = 0;
  let prev = '';     // last significant code character (for regex detection)
  const blank = (s) => s.replace(/[^\n]/g, ' ');
  const skipString = (q) => {
    let j = i + 1;
    while (j < n && text[j] !== q && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
    out += q + blank(text.slice(i + 1, j)) + (j < n ? text[j] : '');
    i = j + 1;
  };
  const skipTemplate = () => {  // from after ` or } to the end of the text part
    let j = i;
    while (j < n && text[j] !== '`' && !(text[j] === '$' && text[j + 1] === '{')) j += text[j] === '\\' ? 2 : 1;
    out += blank(text.slice(i, j));
    if (text[j] === '`') { out += '`'; i = j + 1; prev = '`'; return; }
    out += '${';
    i = j + 2;
    templ.push(depth);
    depth++;
    prev = '{';
  };
  while (i < n) {
    const c = text[i];
    const d = text[i + 1];
    if (c === '/' && d === '/') {
      const j = text.indexOf('\n', i);
      out += blank(text.slice(i, j < 0 ? n : j));
      i = j < 0 ? n : j;
    } else if (c === '/' && d === '*') {
      const j = text.indexOf('*/', i + 2);
      const end = j < 0 ? n : j + 2;
      out += blank(text.slice(i, end));
      i = end;
    } else if (c === '"' || c === "'") {
      if (!js && c === '"' && /R$/.test(text.slice(Math.max(0, i - 1), i))) {
        // C++ raw string R"delim( ... )delim"
        const open = text.indexOf('(', i);
        const delim = text.slice(i + 1, open);
        const close = text.indexOf(`)${delim}"`, open);
        const end = close < 0 ? n : close + delim.length + 2;
        out += blank(text.slice(i, end));
        i = end;
      } else {
        skipString(c);
      }
      prev = c;
    } else if (js && c === '`') {
      out += '`';
      i++;
      skipTemplate();
    } else if (js && c === '}' && templ.length && templ[templ.length - 1] === depth - 1) {
      templ.pop();
      depth--;
      out += '}';
      i++;
      skipTemplate();
    } else if (js && c === '/' && (prev === '' || '(,=:[!&|?{};+-*%<>~^'.includes(prev) || /\b(return|typeof|case)\s*$/.test(out.slice(-12)))) {
      // A regular expression literal.
      let j = i + 1;
      let cls = false;
      while (j < n && text[j] !== '\n' && (cls || text[j] !== '/')) {
        if (text[j] === '\\') j++;
        else if (text[j] === '[') cls = true;
        else if (text[j] === ']') cls = false;
        j++;
      }
      out += blank(text.slice(i, j + 1));
      i = j + 1;
      prev = '/';
    } else {
      if (c === '{') depth++;
      if (c === '}') depth--;
      if (!/\s/.test(c)) prev = c;
      out += c;
      i++;
    }
  }
  return out;
}

const NOT_A_FUNCTION = /^\s*(if|for|while|switch|catch|else|do|try|return|sizeof|alignof|decltype)\b/;

// [{name, line, lines}] for each outermost function body in `text`.
export function functions(text, js) {
  const code = codeOnly(text, js);
  const out = [];
  const stack = [];  // for each open brace: {kind: 'fn', name, line} or {kind: 'block'}
  // Inside a function, unless a class opened since: the methods of a class
  // declared in a function are functions of their own.
  const inFunction = () => {
    for (let k = stack.length - 1; k >= 0; k--) {
      if (stack[k].kind === 'class') return false;
      if (stack[k].kind === 'fn') return true;
    }
    return false;
  };
  let stmtStart = 0; // where the text leading to the next brace starts
  let line = 1;
  const lineAt = [];
  for (let i = 0; i < code.length; i++) {
    lineAt[i] = line;
    if (code[i] === '\n') line++;
  }
  let parens = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === '(') parens++;
    if (c === ')') parens--;
    if (c === ';') {
      if (!inFunction()) stmtStart = i + 1;
    } else if (c === '{') {
      const inFn = inFunction();
      let isFn = false;
      if (!inFn) {
        const head = code.slice(stmtStart, i);
        const h = head.replace(/\s+/g, ' ').trim();
        const sig = js
          ? /(\)|=>)\s*$/.test(h) && !/^(class|if|for|while|switch|catch)\b/.test(h)
          : /\)\s*(const|noexcept|override|final|mutable|->\s*[\w:<>,*& ]+|\s)*$/.test(h) ||
            /\)\s*(const\s*)?(noexcept\s*)?:\s*[\w:]+\s*[({]/.test(h);  // a constructor's initializer list
        isFn = sig && !NOT_A_FUNCTION.test(h) && !/^\s*(namespace|class|struct|enum|union|extern)\b/.test(h);
        if (isFn) {
          const first = stmtStart + (head.length - head.trimStart().length);
          const name = (h.match(/([\w:~]+|operator\S+)\s*\([^()]*(\([^()]*\)[^()]*)*\)[^(]*$/) || [])[1] ||
            (h.match(/(\w+)\s*=/) || [])[1] || '(anonymous)';
          stack.push({ kind: 'fn', name, line: lineAt[first] });
        }
      }
      if (!isFn) {
        const h = code.slice(stmtStart, i);
        stack.push({ kind: /\bclass\b[^=()]*$/.test(h) ? 'class' : 'block', line: lineAt[i] });
      }
      if (!inFunction()) stmtStart = i + 1;
    } else if (c === '}') {
      const top = stack.pop();
      if (top && top.kind === 'fn') {
        out.push({ name: top.name, line: top.line, lines: lineAt[i] - top.line + 1 - (top.excluded || 0) });
      }
      if (top && top.kind === 'class') {
        // A class's lines belong to its methods, not to a function around it.
        const holder = [...stack].reverse().find((e) => e.kind === 'fn' || e.kind === 'class');
        if (holder && holder.kind === 'fn') holder.excluded = (holder.excluded || 0) + lineAt[i] - top.line + 1;
      }
      if (!inFunction()) stmtStart = i + 1;
    } else if (c === ',' && parens === 0 && !inFunction() && js) {
      // Entries of a top-level object or array literal: each may be a function.
      stmtStart = i + 1;
    }
  }
  return out;
}

function walk(dir, files) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, files);
    else if (SOURCE.test(name)) files.push(p);
  }
  return files;
}

export function check({ maxFile = 600, maxFunction = 80, dirs = DIRS } = {}) {
  const problems = [];
  for (const d of dirs) {
    for (const file of walk(join(ROOT, d), [])) {
      const rel = relative(ROOT, file);
      if (VENDORED.some((re) => re.test(rel))) continue;
      const text = readFileSync(file, 'utf8');
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      if (lines > maxFile) problems.push(`${rel}: ${lines} lines (limit ${maxFile})`);
      for (const f of functions(text, /\.m?js$/.test(file))) {
        if (f.lines > maxFunction) problems.push(`${rel}:${f.line}: ${f.name} is ${f.lines} lines (limit ${maxFunction})`);
      }
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const opt = (k, def) => {
    const i = argv.indexOf(`--${k}`);
    if (i < 0) return def;
    const v = Number(argv[i + 1]);
    argv.splice(i, 2);
    return v;
  };
  const maxFile = opt('max-file', 600);
  const maxFunction = opt('max-function', 80);
  const problems = check({ maxFile, maxFunction, dirs: argv.length ? argv : DIRS });
  for (const p of problems) console.log(p);
  if (problems.length) {
    console.log(`${problems.length} over the limits (files ${maxFile} lines, functions ${maxFunction})`);
    process.exit(1);
  }
  console.log(`sizes: every file within ${maxFile} lines and every function within ${maxFunction}`);
}
