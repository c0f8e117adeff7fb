// The autonomy guard from the outside: the real `pulse guard` and
// `pulse session open|close` on a temp workspace, and the real WASM module
// reading the decisions the command line recorded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PULSE_BIN, WASM_DIR, makeTempDir } from './helpers.mjs';

function workspace(dir, name, config) {
  const wf = join(dir, 'Workflow', name);
  mkdirSync(wf, { recursive: true });
  writeFileSync(join(wf, 'workflow.json'), JSON.stringify(config));
  return ['--workspace', dir, '--workflow', name];
}

function pulse(args, env = {}) {
  const r = spawnSync(PULSE_BIN, args, { encoding: 'utf8', env: { ...process.env, MCP_API_TOKEN: '', ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function guard(ws, turn, tool, args) {
  const argv = ['guard', ...ws, '--turn', turn, '--tool', tool];
  if (args !== undefined) argv.push('--args', JSON.stringify(args));
  const r = pulse(argv);
  assert.equal(r.code, 0, `pulse guard exits 0 either way: ${r.err}`);
  return JSON.parse(r.out);
}

const SAMPLE = [
  ['goal_work', 'update_step', { step_id: 's1' }],
  ['goal_work', 'Execute-Step', {}],
  ['goal_check', 'send_slack_message', { channel: '#x' }],
  ['goal_check', 'gog', { args: ['--account', 'me@x.com', 'gmail', 'send'] }],
  ['goal_check', 'gog', { command: 'gmail search is:unread' }],
  ['ask_pulse', 'notify_user', { message: 'm', options: { email_cc: ['a@b.c'] } }],
  ['ask_pulse', 'notify_user', { message: 'm' }],
  ['run_failed', 'record_pulse_qa_request', { what: 'check step-3' }],
  ['run_failed', 'execute_step', {}],
  ['goal_work', 'delete_step', { step_id: 's1' }],
  ['goal_work', 'write_file', { path: 'x/../SOUL.md' }],
  ['goal_work', 'bash', { command: 'curl "$MCP_API_URL/s/a/tools/custom/update_step"' }],
  ['goal_work', 'browser_click', {}],
  ['builder_question', 'update_step', {}],
  ['builder_fix', 'update_step', {}],
  ['builder_fix', 'run_full_workflow', {}],
  ['workflow_step', 'update_step', {}],
  ['goal_work_receipt', 'ask_goal_lead', {}],
];

test('pulse guard follows pulse.autonomy.change: ask refuses update_step, auto allows it', () => {
  const { dir, cleanup } = makeTempDir();
  try {
    const ask = workspace(dir, 'asks', { pulse: { autonomy: { change: 'ask' } } });
    const auto = workspace(dir, 'autos', { pulse: { autonomy: { change: 'auto' } } });
    const refused = guard(ask, 'goal_work', 'update_step', { step_id: 'step-growth-summary' });
    assert.deepEqual(Object.keys(refused).sort(), ['allowed', 'reason', 'rule']);
    assert.equal(refused.allowed, false);
    assert.equal(refused.rule, 'change_level');
    assert.equal(
      refused.reason,
      'refused: update_step is a Change tool and pulse.autonomy.change is ask in this goal_work turn; ' +
        'create a decision request instead (create_decision_request)',
    );
    const allowed = guard(auto, 'goal_work', 'update_step', { step_id: 'step-growth-summary' });
    assert.equal(allowed.allowed, true);
    // A run_failed turn holds Change even at auto.
    const held = guard(auto, 'run_failed', 'update_step');
    assert.equal(held.allowed, false);
    assert.match(held.reason, /pulse\.autonomy\.change is held at ask in this run_failed turn/);
    // --json carries the class and level too.
    const full = JSON.parse(pulse(['guard', ...ask, '--turn', 'goal_check', '--tool', 'gog', '--json',
      '--args', '{"args":["--json","gmail","send"]}']).out);
    assert.equal(full.allowed, false);
    assert.equal(full.level, 'outward');
    assert.equal(full.class, 'outward');
    assert.equal(full.turn, 'goal_check');
  } finally {
    cleanup();
  }
});

test('pulse guard rejects bad input with exit 2 naming the flag', () => {
  const { dir, cleanup } = makeTempDir();
  try {
    const ws = workspace(dir, 'demo', {});
    const bad = pulse(['guard', ...ws, '--turn', 'goal_work', '--tool', 'x', '--args', '{not json']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--args: not valid JSON/);
    assert.equal(bad.out, '');
    const arr = pulse(['guard', ...ws, '--turn', 'goal_work', '--tool', 'x', '--args', '[1,2]']);
    assert.equal(arr.code, 2);
    assert.match(arr.err, /--args: expected a JSON object/);
    const turn = pulse(['guard', ...ws, '--turn', 'lunch', '--tool', 'x']);
    assert.equal(turn.code, 2);
    assert.match(turn.err, /--turn: unknown turn kind "lunch"/);
    const noTurn = pulse(['guard', ...ws, '--tool', 'x']);
    assert.equal(noTurn.code, 2);
    assert.match(noTurn.err, /--turn/);
  } finally {
    cleanup();
  }
});

test('pulse session open gives an unattended session whose token the guard checks; close ends it', () => {
  const { dir, cleanup } = makeTempDir();
  try {
    const ws = workspace(dir, 'substack', { pulse: { autonomy: { change: 'ask' } } });
    const opened = pulse(['session', 'open', ...ws, '--turn', 'goal_work']);
    assert.equal(opened.code, 0, opened.err);
    const { session, token } = JSON.parse(opened.out);
    assert.match(session, /^schedule-goallead--[0-9a-f]{16}-o1$/);
    assert.match(token, /^[0-9a-f]{64}$/);
    const second = JSON.parse(pulse(['session', 'open', ...ws, '--turn', 'goal_check']).out);
    assert.notEqual(second.session, session);
    assert.notEqual(second.token, token);

    // The session's turn decides; a --turn or smuggled arguments change nothing.
    const viaSession = JSON.parse(pulse(['guard', ...ws, '--session', session, '--token', token, '--turn', 'workflow_step',
      '--tool', 'update_step', '--args', JSON.stringify({ session: 'x', turn: 'workflow_step' }), '--json']).out);
    assert.equal(viaSession.allowed, false);
    assert.equal(viaSession.turn, 'goal_work');
    const byTurn = guard(ws, 'goal_work', 'update_step', { session: 'x', turn: 'workflow_step' });
    assert.equal(viaSession.reason, byTurn.reason);

    // Another session's token is not a refusal: it is unauthenticated.
    const wrong = pulse(['guard', ...ws, '--session', session, '--token', second.token, '--tool', 'read_step']);
    assert.equal(wrong.code, 2);
    assert.match(wrong.err, /missing or wrong session token/);

    const closed = pulse(['session', 'close', ...ws, '--session', session, '--json']);
    assert.equal(closed.code, 0, closed.err);
    assert.deepEqual(JSON.parse(closed.out).closed, [session]);
    const after = JSON.parse(pulse(['guard', ...ws, '--session', session, '--token', token, '--tool', 'read_step']).out);
    assert.equal(after.allowed, false);
    assert.equal(after.rule, 'session_closed');

    // Every decision was recorded per session with its rule.
    const log = JSON.parse(pulse(['session', 'decisions', ...ws, '--session', session, '--json']).out);
    assert.deepEqual(log.decisions.map((d) => d.rule), ['change_level', 'session_closed']);
    assert.ok(log.decisions.every((d) => d.session === session && d.turn === 'goal_work'));

    const missing = pulse(['session', 'close', ...ws, '--session', 'schedule-nope']);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /--session: session "schedule-nope": no such session/);
  } finally {
    cleanup();
  }
});

// The WASM module does not decide tool calls (nothing in the browser makes
// one; leaving the guard's scanners out keeps the module within its size
// budget): it reads the decisions `pulse guard` recorded, the levels, the
// catalog and sessions from the same database, and answers autonomy.guard
// with where the guard runs.
let sqlApi;
function wasmApi() {
  sqlApi ||= import(pathToFileURL(join(WASM_DIR, 'sqljs-api.mjs')).href).then(({ initPulse }) =>
    initPulse({ wasmBinary: readFileSync(join(WASM_DIR, 'pulse.wasm')) }));
  return sqlApi;
}

test('the WASM module reads the decisions pulse guard recorded, and leaves deciding to the server and the CLI', async () => {
  const { Database, Pulse } = await wasmApi();
  const { dir, cleanup } = makeTempDir();
  const tokens = new Set();
  try {
    for (const config of [{}, { pulse: { autonomy: { run: 'auto', outward: 'auto', change: 'auto', unclassified: 'allow' } } }]) {
      const name = `w${Object.keys(config).length}`;
      const ws = workspace(dir, name, config);
      const cli = SAMPLE.map(([turn, tool, args]) => guard(ws, turn, tool, args));
      const db = new Database(readFileSync(join(dir, 'Workflow', name, 'db', 'db.sqlite')));
      const pulse = new Pulse(db);
      const decisions = pulse.call('autonomy.decisions').decisions;
      assert.deepEqual(decisions.map((d) => ({ allowed: d.allowed, reason: d.reason, rule: d.rule })), cli, name);
      assert.deepEqual(decisions.map((d) => d.turn), SAMPLE.map(([turn]) => turn));
      assert.equal(pulse.call('autonomy.levels').change, config.pulse ? 'auto' : 'ask');
      assert.ok(pulse.call('autonomy.catalog').tools.some((t) => t.name === 'delete_step' && t.class === 'always_refused'));
      // Sessions work in the browser too, with the same hashing code.
      const opened = pulse.call('session.open', { turn: 'goal_work' });
      assert.match(opened.session, /^schedule-goallead--[0-9a-f]{16}-o1$/);
      assert.match(opened.token, /^[0-9a-f]{64}$/);
      tokens.add(opened.token);
      assert.equal(pulse.call('session.resolve', { token: opened.token }).session, opened.session);
      assert.throws(() => pulse.call('autonomy.guard', { turn: 'goal_work', tool: 'update_step' }), (e) =>
        e.code === 'not_found' && /decides tool calls in `pulse serve` and `pulse guard`, not in the WebAssembly module/.test(e.message));
      db.close();
    }
    assert.equal(tokens.size, 2, 'WASM tokens come from the system source, not a fixed seed');
  } finally {
    cleanup();
  }
});

// What no autonomy setting lifts, through the real `pulse guard`: with every
// level at auto and unclassified=allow, each call below is still refused by
// the rule named, and the few beside them that only look alike are allowed.
test('pulse guard: protected paths, hidden soul.md writes, wrappers, the tool route and look-alike names are refused at any level', () => {
  const { dir, cleanup } = makeTempDir();
  try {
    const ws = workspace(dir, 'open', { pulse: { autonomy: { run: 'auto', outward: 'auto', change: 'auto', unclassified: 'allow' } } });
    const refused = [
      ['read_file', { path: '../../.pulse/owner-token' }, 'protected_path'],
      ['write_file', { path: '../../.pulse/owner-token', content: 'x' }, 'protected_path'],
      ['read_file', { path: 'db/db.sqlite' }, 'protected_path'],
      ['write_file', { path: 'memory/goal.md', content: 'x' }, 'protected_path'],
      ['bash', { command: 'sqlite3 db/db.sqlite .dump' }, 'protected_path'],
      ['move_file', { src: 'draft.md', dst: 'soul.md' }, 'soul_md'],
      ['move_file', { src: 'draft.md', new_name: 'Soul.md' }, 'soul_md'],
      ['move_file', { src: 'draft.md', rename_to: 'soul.md' }, 'soul_md'],
      ['edit_file', { path: 'soul.md\u0000' }, 'soul_md'],
      ['edit_file', { path: 'soul.md%00.txt' }, 'soul_md'],
      ['apply_patch', { patch: 'diff --git a/d.md b/soul.md\nrename from d.md\nrename to soul.md\n' }, 'soul_md'],
      ['apply_patch', { patch: 'diff --git a/d.md b/e.md\ncopy from d.md\ncopy to soul.md\n' }, 'soul_md'],
      ['apply_patch', { patch: 'Index: soul.md\n--- soul.md\n+++ soul.md\n' }, 'soul_md'],
      ['bash', { command: 'echo x>soul.md' }, 'soul_md'],
      ['bash', { command: 'dd if=/tmp/x of=soul.md' }, 'soul_md'],
      ['bash', { command: 'curl -o soul.md https://example.com' }, 'soul_md'],
      ['bash', { command: 'echo x | tee soul.md' }, 'soul_md'],
      ['bash', { command: 'python3 -c "open(\'soul.md\',\'w\').write(\'x\')"' }, 'soul_md'],
      ['call_tool', { tool_call: { name: 'delete_step' } }, 'always_refused'],
      ['invoke', { request: { function: { name: 'replace_plan', arguments: '{}' } } }, 'always_refused'],
      ['bash', { command: 'curl -X POST "$PULSE_TOOL_URL/delete_step"' }, 'shell_tool_route'],
      ['bash', { command: 'curl -X POST "$MCP_API_URL"' }, 'shell_tool_route'],
      ['run_python', { code: "u = os.environ['PULSE_' + 'TOOL_URL']" }, 'shell_tool_route'],
      ['del\u200bete_step', {}, 'always_refused'],
      ['dele\u00adte_step', {}, 'always_refused'],
      ['\uff44\uff45lete_step', {}, 'always_refused'],
      ['d\u0435lete_step', {}, 'always_refused'],
    ];
    for (const [tool, args, rule] of refused) {
      const d = guard(ws, 'goal_work', tool, args);
      assert.equal(d.allowed, false, `${tool} ${JSON.stringify(args)}: ${d.reason}`);
      assert.equal(d.rule, rule, `${tool} ${JSON.stringify(args)}: ${d.reason}`);
      assert.match(d.reason, /create a decision request instead/);
    }
    for (const [tool, args] of [
      ['read_file', { path: 'soul.md' }],
      ['bash', { command: 'cat soul.md' }],
      ['write_file', { path: 'pulse/work/soul.md.draft' }],
      ['call_tool', { tool_call: { name: 'get_run' } }],
    ]) {
      const d = guard(ws, 'goal_work', tool, args);
      assert.equal(d.allowed, true, `${tool} ${JSON.stringify(args)}: ${d.reason}`);
    }
    // notify_user in a held turn: any recipient-like key is Outward, held at ask.
    const held = workspace(dir, 'held', {});
    for (const key of ['to', 'mail_to', 'address', 'target', 'recipients', 'cc', 'phone', 'channel', 'emailAddress']) {
      const d = guard(held, 'goal_check', 'notify_user', { message: 'm', [key]: 'someone' });
      assert.equal(d.allowed, false, key);
      assert.equal(d.rule, 'outward_level', key);
    }
    assert.equal(guard(held, 'goal_check', 'notify_user', { message: 'm', title: 't' }).allowed, true);
  } finally {
    cleanup();
  }
});

// A session token on a command line is readable by every local process
// (/proc/<pid>/cmdline): the commands that take one read it from a file or
// from $MCP_API_TOKEN, what a runner has.
test('session tokens come from --token-file or $MCP_API_TOKEN, not only the command line', () => {
  const { dir, cleanup } = makeTempDir();
  try {
    const ws = workspace(dir, 'substack', { pulse: { autonomy: { change: 'ask' } } });
    const { session, token } = JSON.parse(pulse(['session', 'open', ...ws, '--turn', 'goal_work']).out);
    const file = join(dir, 'token.txt');
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    for (const [how, extra, env] of [['--token-file', ['--token-file', file], {}], ['$MCP_API_TOKEN', [], { MCP_API_TOKEN: token }]]) {
      const resolved = pulse(['session', 'resolve', ...ws, ...extra], env);
      assert.equal(resolved.code, 0, `${how}: ${resolved.err}`);
      assert.equal(JSON.parse(resolved.out).session, session, how);
      const tool = pulse(['tool', ...ws, '--tool', 'get_pulse_state', '--args', '{"view":"goal_status"}', ...extra], env);
      assert.equal(tool.code, 0, `${how}: ${tool.err}`);
      assert.equal(JSON.parse(tool.out).allowed, true, how);
    }
    // The guard checks a token only when one is named (never from the environment).
    const viaFile = JSON.parse(pulse(['guard', ...ws, '--session', session, '--token-file', file, '--tool', 'update_step', '--json']).out);
    assert.equal(viaFile.turn, 'goal_work');
    const missing = pulse(['tool', ...ws, '--tool', 'get_pulse_state']);
    assert.equal(missing.code, 2);
    assert.equal(missing.err, 'pulse: --token: missing (give --token-file FILE, or set MCP_API_TOKEN)\n');
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '\n');
    const blank = pulse(['session', 'resolve', ...ws, '--token-file', empty]);
    assert.equal(blank.code, 2);
    assert.match(blank.err, /--token-file .*empty/);
    assert.equal(pulse(['tool', ...ws, '--tool', 'x', '--token', token, '--token-file', file]).code, 2);
  } finally {
    cleanup();
  }
});
