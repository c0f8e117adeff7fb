// The autonomy guard from the outside: the real `pulse guard` and
// `pulse session open|close` on a temp workspace, and the real WASM module's
// autonomy.guard giving the same decisions as the command line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PULSE_BIN, loadPulseModule, makeTempDir, pulseReply } from './helpers.mjs';

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
    assert.match(session, /^schedule-goallead--[0-9a-f]{16}-g1$/);
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

// The WASM module computes the same decisions from a database alone.
function openWasmDb(Module, configJson) {
  const pp = Module._malloc(4);
  const rc = Module.ccall('sqlite3_open_v2', 'number', ['string', 'number', 'number', 'number'], [':memory:', pp, 6, 0]);
  assert.equal(rc, 0);
  const db = Module.getValue(pp, 'i32');
  Module._free(pp);
  // Creates the schema, then stores the configuration snapshot the CLI would.
  assert.ok(pulseReply(Module, db, 'autonomy.levels').result);
  const sql = `INSERT INTO pulse_workflow_config(id, workflow, config_json, soul_md, updated_at)
    VALUES(1, 'demo', '${configJson.replaceAll("'", "''")}', '', '2026-10-07T09:00:00Z')`;
  assert.equal(Module.ccall('sqlite3_exec', 'number', ['number', 'string', 'number', 'number', 'number'], [db, sql, 0, 0, 0]), 0);
  return db;
}

test('autonomy.guard in the WASM module gives the same decisions as pulse guard', async () => {
  const Module = await loadPulseModule();
  const { dir, cleanup } = makeTempDir();
  const tokens = new Set();
  try {
    for (const config of [{}, { pulse: { autonomy: { run: 'auto', outward: 'auto', change: 'auto', unclassified: 'allow' } } }]) {
      const name = `w${Object.keys(config).length}`;
      const ws = workspace(dir, name, config);
      const db = openWasmDb(Module, JSON.stringify(config));
      for (const [turn, tool, args] of SAMPLE) {
        const cli = guard(ws, turn, tool, args);
        const out = pulseReply(Module, db, 'autonomy.guard', { turn, tool, args });
        assert.ok(out.result, JSON.stringify(out));
        assert.deepEqual(
          { allowed: out.result.allowed, reason: out.result.reason, rule: out.result.rule },
          cli,
          `${name} ${turn} ${tool}`,
        );
        assert.equal(out.result.recorded, true);
      }
      const levels = pulseReply(Module, db, 'autonomy.levels').result;
      assert.equal(levels.change, config.pulse ? 'auto' : 'ask');
      const decisions = pulseReply(Module, db, 'autonomy.decisions').result.decisions;
      assert.equal(decisions.length, SAMPLE.length);
      // Sessions work in the browser too, with the same hashing code.
      const opened = pulseReply(Module, db, 'session.open', { turn: 'goal_work' }).result;
      assert.match(opened.session, /^schedule-goallead--[0-9a-f]{16}-g1$/);
      assert.match(opened.token, /^[0-9a-f]{64}$/);
      tokens.add(opened.token);
      const resolved = pulseReply(Module, db, 'session.resolve', { token: opened.token }).result;
      assert.equal(resolved.session, opened.session);
      const bad = pulseReply(Module, db, 'autonomy.guard',
        { session: opened.session, token: 'nope', tool: 'read_step' });
      assert.equal(bad.code, 'unauthenticated');
      Module.ccall('sqlite3_close_v2', 'number', ['number'], [db]);
    }
    assert.equal(tokens.size, 2, 'WASM tokens come from the system source, not a fixed seed');
    // Without a database: the default levels, nothing recorded.
    const bare = pulseReply(Module, 0, 'autonomy.guard', { turn: 'goal_work', tool: 'update_step' }).result;
    assert.equal(bare.allowed, false);
    assert.equal(bare.recorded, false);
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
