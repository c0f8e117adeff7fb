// Claude Code and Codex as Pulse's runner and as the Builder chat
// (`--runner claude|codex`, `--builder claude|codex`), tested with the real
// programs: the pinned npm packages scripts/programs.sh installs into
// .cache/programs/ (scripts/test.sh exports PULSE_PROGRAMS_BIN), each pointed
// at the scripted model server on loopback (tests/server/model_server.mjs:
// Anthropic's Messages API for Claude Code, OpenAI's Responses API for
// Codex), driving the real `pulse serve` through its /mcp under the runner
// sandbox (as root here, the programs run as nobody under Landlock).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  SUBSTACK_CONFIG, buildSubstack, finishedGoalCheck, makeTempDir, pulse, pulseAsync, request, setNow, startServer, waitFor,
} from './helpers.mjs';
import { lastToolResults, lastUserText, startModelServer, systemPrompt, toolNames, toolResults } from './model_server.mjs';
import { skipUnless } from '../strict.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PROGRAMS_BIN = process.env.PULSE_PROGRAMS_BIN || join(ROOT, '.cache', 'programs', 'node_modules', '.bin');
const NOW = '2026-10-07T12:00:00Z';
const KEY = 'sk-ant-pulse-test-5e2a91c0d7b34f68';
const MODEL = 'pulse-test-model';
const OWNER_CHATS = [{ session_id: 'b-1', kind: 'builder', account: 'ana', last_active_at: '2026-10-07T11:50:00Z', live: true, busy: false }];
// The goal check is the tick's only turn (no after-run housekeeping).
const CONFIG = { ...SUBSTACK_CONFIG, access: [{ account: 'ana', role: 'owner' }],
  schedules: [{ id: 'daily', cron: '0 9 * * *', enabled: true, after_run: { backup: false, publish: false, notify: true } }] };

const programMissing = (name) => [existsSync(join(PROGRAMS_BIN, name)),
  `${join(PROGRAMS_BIN, name)} is missing (bash scripts/programs.sh installs Claude Code and Codex; scripts/test.sh runs it)`];
const skipClaude = skipUnless(import.meta.url, [programMissing('claude')].filter(([ok]) => !ok).map(([, why]) => why));
const skipCodex = skipUnless(import.meta.url, [programMissing('codex')].filter(([ok]) => !ok).map(([, why]) => why));

function setup(prefix) {
  const tmp = makeTempDir(prefix);
  const ws = join(tmp.dir, 'ws');
  buildSubstack(ws, 'substack', CONFIG);
  const wf = join(ws, 'Workflow', 'substack');
  writeFileSync(join(wf, 'chats.json'), JSON.stringify(OWNER_CHATS));
  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, NOW);
  // Files the programs' own tools would make if they ran.
  const marks = { bash: join(tmp.dir, 'bash-ran'), write: join(tmp.dir, 'write-ran'), patch: join(tmp.dir, 'patch-ran') };
  return { tmp, ws, wf, nowFile, marks };
}

const env = (extra = {}) => ({ PATH: `${PROGRAMS_BIN}:${process.env.PATH}`, ...extra });

async function turnRow(s, runId) {
  return waitFor(async () => {
    const rows = (await request(`${s.url}api/workflows/substack/agent-log?run_id=${runId}`)).body.rows;
    return rows.length === 1 && rows[0].status !== 'running' ? rows[0] : null;
  }, { what: `turn ${runId}`, timeoutMs: 120000 });
}

async function say(s, text) {
  const r = await request(`${s.url}api/workflows/substack/messages`, { method: 'POST', token: s.ownerToken, body: { text } });
  assert.equal(r.status, 202, r.text);
  return turnRow(s, r.body.turn.pulse_run_id);
}

// Every file under dir.
function* files(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) yield* files(p); else if (st.isFile() && st.size < 50e6) yield [p, readFileSync(p)];
  }
}

// The model's side of a test: requests from Pulse's program (its system
// prompt is Pulse's charter) and from the Builder's (the Builder charter)
// answered by `pulse(req, n)` and `builder(req, n)`, n counting each side's
// requests. Requests the scripted server refused (a beta feature it does not
// speak, which the program then retries without) never get here. A request
// nothing was scripted for is kept in `unscripted` and answered 400, which
// the programs do not retry.
function router({ pulseSide, builderSide }, unscripted) {
  const n = { pulse: 0, builder: 0 };
  return async (req) => {
    const builder = /Builder chat of workflow/.test(systemPrompt(req));
    const side = builder ? 'builder' : 'pulse';
    const step = await (builder ? builderSide : pulseSide)(req, n[side]++);
    if (step) return step;
    unscripted.push(`${side} request ${n[side] - 1}: ${lastUserText(req).slice(0, 200)}`);
    return { status: 400, error: 'nothing scripted for this request' };
  };
}

const asJson = (text) => { try { return JSON.parse(text); } catch { return null; } };

test('Claude Code as the runner (--runner claude) and the Builder chat (--builder claude): Pulse\'s MCP its only tools, a refused update_step reaching the model, the decision made, the check recorded, the answer the turn\'s, the next turn resuming its session, ask_builder answered by the Builder\'s Claude Code, its own Bash and Write doing nothing', { skip: skipClaude, timeout: 300000 }, async () => {
  const { tmp, ws, wf, nowFile, marks } = setup('pulse-claude-');
  const summary = 'Substack Pulse: not measured for 20 days; I asked you whether to add a measuring step.';
  const builderAnswer = 'growth_funnel lost its record_subscribers step on 1 Oct (a shorter plan).';
  const seen = {};
  const unscripted = [];
  const m = await startModelServer({
    key: KEY,
    fallback: router({
      pulseSide: (req, n) => {
        const results = lastToolResults(req);
        if (n === 0) {
          seen.firstPulse = req;
          return { tools: [
            { name: 'mcp__pulse__record_pulse_goal_check', arguments: { verdict: 'not_measured', note: 'no reading by a run' } },
            { name: 'mcp__pulse__update_step', arguments: { step_id: 'growth_funnel', config: { record: 'subscribers' } } },
            { name: 'Bash', arguments: { command: `touch ${marks.bash}`, description: 'x' } },
            { name: 'Write', arguments: { file_path: marks.write, content: 'x' } },
          ] };
        }
        if (n === 1) {
          seen.afterTools = results;
          return { tools: [{ name: 'mcp__pulse__create_decision_request', arguments: {
            question: 'Add a step to growth_funnel that records subscribers?', options: ['Add the step', 'Leave it'],
            why: 'no run has measured subscribers for 20 days' } }] };
        }
        if (n === 2) {
          seen.decision = results;
          return { text: summary, usage: { input: 900, output: 90 } };
        }
        // The owner's message: the same Claude Code session goes on.
        if (n === 3) {
          seen.resumed = req;
          return { tools: [{ name: 'mcp__pulse__ask_builder', arguments: { kind: 'question', message: 'What changed in growth_funnel?', wait_seconds: 90 } }] };
        }
        if (n === 4) {
          seen.builderResult = results;
          return { text: `The Builder says: ${builderAnswer}` };
        }
        // A month on: the goal check of a new generation.
        if (n === 5) {
          seen.newGeneration = req;
          return { text: 'A new generation: still not measured.' };
        }
        // `pulse talk --runner claude` from the command line.
        if (n === 6) {
          seen.cli = req;
          return { tools: [{ name: 'mcp__pulse__get_pulse_state', arguments: { view: 'goal_status' } }] };
        }
        if (n === 7) {
          seen.cliResult = results;
          return { text: 'From the command line: not measured.' };
        }
        return null;
      },
      builderSide: (req, n) => {
        if (n === 0) {
          seen.firstBuilder = req;
          return { tools: [{ name: 'mcp__pulse__update_step', arguments: { step_id: 'growth_funnel', config: { x: 1 } } }] };
        }
        if (n === 1) {
          seen.builderHeld = lastToolResults(req);
          return { text: builderAnswer };
        }
        // The owner's answer: the apply message, in the same Builder chat's session.
        if (n === 2) {
          seen.apply = req;
          return { text: 'Applied: growth_funnel records subscribers again.' };
        }
        return null;
      },
    }, unscripted),
  });
  const s = await startServer(ws, ['--tick-seconds', '0.2', '--now-file', nowFile, '--runner', 'claude', '--builder', 'claude',
    '--model', `anthropic:${MODEL}`, '--model-url', m.anthropicUrl, '--runner-timeout', '120'], { env: env({ ANTHROPIC_API_KEY: KEY }) });
  try {
    const health = (await request(`${s.url}api/health`)).body;
    assert.equal(health.turns.thinks_with, 'program');
    assert.equal(health.turns.program.name, 'claude');
    assert.equal(health.turns.program.found, true);
    assert.equal(health.turns.program.key, 'set');
    assert.equal(health.turns.builder.name, 'claude');

    // The daily goal check, run by Claude Code.
    const row = await waitFor(async () => {
      const r = await finishedGoalCheck(s);
      return r;
    }, { timeoutMs: 120000, what: 'the goal check' });
    assert.equal(row.status, 'completed', JSON.stringify(row) + s.stderr.slice(-3000));
    assert.equal(row.result, summary);
    assert.deepEqual(m.failures, []);
    assert.deepEqual(unscripted, []);
    // It spoke to the model with the operator's key, Pulse's charter as its
    // system prompt, and no tool but Pulse's.
    const first = seen.firstPulse;
    assert.equal(first.format, 'anthropic');
    assert.equal(first.headers['x-api-key'], KEY);
    assert.equal(first.body.model, MODEL);
    assert.match(systemPrompt(first), /You are Pulse, the goal owner of workflow "substack"/);
    assert.match(systemPrompt(first), /your only tools are Pulse's, from its MCP server "pulse"/);
    assert.match(lastUserText(first), /^PULSE TURN goal_check/);
    const offered = toolNames(first);
    assert.ok(offered.includes('mcp__pulse__record_pulse_goal_check'), offered.join(' '));
    assert.ok(offered.includes('mcp__pulse__create_decision_request'));
    assert.deepEqual(offered.filter((t) => !t.startsWith('mcp__pulse__')), [], 'no tool of its own');
    // record_pulse_goal_check went through and was recorded; update_step was
    // refused by the guard and the model read why; Bash and Write are not there.
    const [check, update, bash, write] = seen.afterTools;
    assert.equal(check.is_error, undefined, check.content);
    assert.equal(asJson(check.content).result.recorded, true, check.content);
    assert.equal(update.is_error, true);
    assert.match(update.content, /^refused: update_step is a Change tool and pulse\.autonomy\.change is ask in this goal_check turn; create a decision request instead/);
    assert.equal(bash.is_error, true);
    assert.match(bash.content, /No such tool available: Bash/);
    assert.match(write.content, /No such tool available: Write/);
    assert.ok(!existsSync(marks.bash) && !existsSync(marks.write), 'Bash and Write did nothing');
    const guard = (await request(`${s.url}api/workflows/substack/autonomy/decisions?session=${row.session_id}`)).body.decisions;
    assert.equal(guard.find((d) => d.tool === 'update_step').allowed, false);
    assert.equal(guard.find((d) => d.tool === 'update_step').rule, 'change_level');
    assert.equal(guard.find((d) => d.tool === 'record_pulse_goal_check').allowed, true);
    const status = (await request(`${s.url}api/workflows/substack/goal-status`)).body;
    assert.equal(status.status, 'not_measured');
    // The decision is there, pending, from Pulse's session.
    const pending = (await request(`${s.url}api/workflows/substack/decisions?status=pending`)).body.decisions;
    assert.equal(pending.length, 1);
    assert.equal(pending[0].question, 'Add a step to growth_funnel that records subscribers?');
    assert.equal(asJson(seen.decision[0].content).result.decision_id, pending[0].id);
    // The summary reached the owner, the tokens the agent log.
    const outbox = (await request(`${s.url}api/workflows/substack/outbox`)).body.messages;
    assert.equal(outbox.find((x) => x.kind === 'pulse_summary').text, summary);
    assert.ok(row.tokens.in > 0 && row.tokens.out > 0, JSON.stringify(row.tokens));

    // The owner's message: a turn in the same generation resumes the same
    // Claude Code session (its own transcript comes back to the model), and
    // Pulse's ask_builder runs in the Builder's Claude Code.
    const talk = await say(s, 'What changed in growth_funnel?');
    assert.equal(talk.status, 'completed', JSON.stringify(talk) + s.stderr.slice(-3000));
    assert.equal(talk.result, `The Builder says: ${builderAnswer}`);
    const resumed = seen.resumed;
    assert.equal(resumed.headers['x-claude-code-session-id'], first.headers['x-claude-code-session-id'], 'the same session');
    const replayed = JSON.stringify(resumed.body.messages);
    assert.ok(replayed.includes('PULSE TURN goal_check'), 'the first turn is in the resumed session');
    assert.ok(replayed.includes(summary));
    assert.match(lastUserText(resumed), /What changed in growth_funnel\?/);
    assert.notEqual(seen.firstBuilder.headers['x-claude-code-session-id'], first.headers['x-claude-code-session-id']);
    // The Builder's Claude Code: the Builder charter, Pulse's MCP its only
    // tools, held to builder_question (its update_step refused).
    assert.match(systemPrompt(seen.firstBuilder), /Builder chat of workflow "substack"/);
    assert.match(lastUserText(seen.firstBuilder), /What changed in growth_funnel\?/);
    assert.deepEqual(toolNames(seen.firstBuilder).filter((t) => !t.startsWith('mcp__pulse__')), []);
    assert.equal(seen.builderHeld[0].is_error, true);
    assert.match(seen.builderHeld[0].content, /refused/);
    // Its answer came back to Pulse as ask_builder's result.
    const answered = asJson(seen.builderResult[0].content).result;
    assert.equal(answered.status, 'answered', seen.builderResult[0].content);
    assert.equal(answered.answer, builderAnswer);

    // The owner answers the decision: the apply message goes to the Builder
    // chat, which is Claude Code, and the same session of that chat goes on.
    const accepted = await request(`${s.url}api/workflows/substack/decisions/${pending[0].id}/answer`, { method: 'POST',
      token: s.ownerToken, body: { option: 'Add the step' } });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.apply.delivered, true, accepted.text);
    assert.equal(accepted.body.apply.reply, 'Applied: growth_funnel records subscribers again.');
    assert.match(lastUserText(seen.apply), /Add the step/);
    assert.equal(seen.apply.headers['x-claude-code-session-id'], seen.firstBuilder.headers['x-claude-code-session-id']);

    // A month later the goal check starts a new generation: a new session.
    setNow(nowFile, '2026-11-08T12:00:00Z');
    await waitFor(() => seen.newGeneration, { timeoutMs: 120000, what: 'the new generation\'s goal check' });
    const conversation = await waitFor(async () => {
      const c = (await request(`${s.url}api/workflows/substack/conversation`)).body;
      return c.session_id.endsWith('-g2') && c.turns.at(-1).state === 'completed' ? c : null;
    }, { timeoutMs: 120000, what: 'generation 2' });
    assert.match(conversation.session_id, /^schedule-goallead--[0-9a-f]+-g2$/);
    assert.notEqual(seen.newGeneration.headers['x-claude-code-session-id'], first.headers['x-claude-code-session-id']);
    assert.ok(!JSON.stringify(seen.newGeneration.body.messages).includes(summary), 'nothing of generation 1');

    // The session token is in no file the programs were given.
    for (const [path, bytes] of files(join(wf, 'pulse', 'programs'))) {
      if (path.endsWith('mcp.json')) assert.match(bytes.toString(), /Bearer \$\{MCP_API_TOKEN\}/);
    }
    assert.ok(!s.stderr.includes(KEY) && !s.stdout.includes(KEY));
    await s.stop();

    // `pulse talk --runner claude`: the command serves Pulse's MCP on
    // loopback for the turn, and the generation's session goes on.
    const talked = await pulseAsync(['talk', '--workspace', ws, '--workflow', 'substack', '--now', '2026-11-08T12:05:00Z',
      '--message', 'Still not measured?', '--json', '--runner', 'claude', '--model', `anthropic:${MODEL}`,
      '--model-url', m.anthropicUrl], { ...process.env, ...env({ ANTHROPIC_API_KEY: KEY }) });
    assert.equal(talked.status, 0, talked.stderr);
    assert.equal(talked.json.turns[0].reply, 'From the command line: not measured.');
    assert.equal(seen.cli.headers['x-claude-code-session-id'], seen.newGeneration.headers['x-claude-code-session-id']);
    assert.equal(seen.cliResult[0].is_error, undefined, seen.cliResult[0].content);
    assert.match(seen.cliResult[0].content, /not_measured/);
    assert.deepEqual(unscripted, [], 'every request the programs made was one the test expected');
    for (const [path, bytes] of files(ws)) assert.equal(bytes.indexOf(KEY), -1, path);
  } finally {
    await s.stop();
    await m.close();
    tmp.cleanup();
  }
});

// What Codex hands back for a tool call: "Wall time: ...\nOutput:\n<text>".
const codexJson = (text) => asJson(text.slice(text.indexOf('{')));

test('Codex as the runner (--runner codex) and the Builder chat (--builder codex) over the Responses API: Pulse\'s MCP its only tools, a refused update_step reaching the model, the decision made, the check recorded, the answer the turn\'s, the next turn resuming its thread, ask_builder answered by the Builder\'s Codex, its own shell and apply_patch doing nothing', { skip: skipCodex, timeout: 300000 }, async () => {
  const { tmp, ws, wf, nowFile, marks } = setup('pulse-codex-');
  const summary = 'Substack Pulse (Codex): not measured for 20 days; a decision waits for you.';
  const builderAnswer = 'The record_subscribers step was removed from growth_funnel on 1 Oct.';
  const pulseTool = (name, args) => ({ namespace: 'mcp__pulse', name, arguments: args });
  const seen = {};
  const unscripted = [];
  const m = await startModelServer({
    key: KEY,
    fallback: router({
      pulseSide: (req, n) => {
        const results = lastToolResults(req);
        if (n === 0) {
          seen.firstPulse = req;
          return { tools: [
            pulseTool('record_pulse_goal_check', { verdict: 'not_measured', note: 'no reading by a run' }),
            pulseTool('update_step', { step_id: 'growth_funnel', config: { record: 'subscribers' } }),
            { name: 'exec_command', arguments: { cmd: `touch ${marks.bash}` } },
            { name: 'shell', arguments: { command: ['touch', marks.write] } },
            { name: 'apply_patch', arguments: { input: `*** Begin Patch\n*** Add File: ${marks.patch}\n+x\n*** End Patch` } },
          ] };
        }
        if (n === 1) {
          seen.afterTools = results;
          return { tools: [pulseTool('create_decision_request', {
            question: 'Add a step to growth_funnel that records subscribers?', options: ['Add the step', 'Leave it'] })] };
        }
        if (n === 2) {
          seen.decision = results;
          return { text: summary };
        }
        if (n === 3) {
          seen.resumed = req;
          return { tools: [pulseTool('ask_builder', { kind: 'question', message: 'What changed in growth_funnel?', wait_seconds: 90 })] };
        }
        if (n === 4) {
          seen.builderResult = results;
          return { text: `The Builder says: ${builderAnswer}` };
        }
        return null;
      },
      builderSide: (req, n) => {
        if (n === 0) {
          seen.firstBuilder = req;
          return { tools: [pulseTool('update_step', { step_id: 'growth_funnel', config: { x: 1 } })] };
        }
        if (n === 1) {
          seen.builderHeld = lastToolResults(req);
          return { text: builderAnswer };
        }
        return null;
      },
    }, unscripted),
  });
  const s = await startServer(ws, ['--tick-seconds', '0.2', '--now-file', nowFile, '--runner', 'codex', '--builder', 'codex',
    '--model', `openai:${MODEL}`, '--model-url', m.openaiUrl, '--runner-timeout', '120'], { env: env({ OPENAI_API_KEY: KEY }) });
  try {
    const health = (await request(`${s.url}api/health`)).body;
    assert.equal(health.turns.program.name, 'codex');
    assert.equal(health.turns.program.found, true);
    assert.equal(health.turns.builder.name, 'codex');

    const row = await waitFor(() => finishedGoalCheck(s), { timeoutMs: 120000, what: 'the goal check' });
    assert.equal(row.status, 'completed', JSON.stringify(row) + s.stderr.slice(-3000));
    assert.equal(row.result, summary);
    assert.deepEqual(m.failures, []);
    assert.deepEqual(unscripted, []);
    const first = seen.firstPulse;
    assert.equal(first.format, 'responses');
    assert.equal(first.path, '/v1/responses');
    assert.equal(first.headers.authorization, `Bearer ${KEY}`);
    assert.equal(first.body.model, MODEL);
    assert.match(systemPrompt(first), /You are Pulse, the goal owner of workflow "substack"/);
    assert.doesNotMatch(systemPrompt(first), /You are a coding agent running in the Codex CLI/, 'the charter replaces Codex\'s own instructions');
    assert.match(lastUserText(first), /^PULSE TURN goal_check/);
    const offered = toolNames(first);
    assert.ok(offered.includes('mcp__pulse__record_pulse_goal_check'), offered.join(' '));
    // Nothing of its own but reading Pulse's MCP resources.
    assert.deepEqual(offered.filter((t) => !t.startsWith('mcp__pulse__')),
      ['list_mcp_resources', 'list_mcp_resource_templates', 'read_mcp_resource']);
    const [check, update, exec, shell, patch] = seen.afterTools;
    assert.equal(codexJson(check.content).result.recorded, true, check.content);
    assert.match(update.content, /refused: update_step is a Change tool and pulse\.autonomy\.change is ask in this goal_check turn; create a decision request instead/);
    assert.match(exec.content, /unsupported call: exec_command/);
    assert.match(shell.content, /unsupported call: shell/);
    assert.match(patch.content, /unsupported call: apply_patch/);
    for (const mark of Object.values(marks)) assert.ok(!existsSync(mark), `${mark}: its own tools did nothing`);
    const guard = (await request(`${s.url}api/workflows/substack/autonomy/decisions?session=${row.session_id}`)).body.decisions;
    assert.equal(guard.find((d) => d.tool === 'update_step').rule, 'change_level');
    const pending = (await request(`${s.url}api/workflows/substack/decisions?status=pending`)).body.decisions;
    assert.equal(pending.length, 1);
    assert.equal(codexJson(seen.decision[0].content).result.decision_id, pending[0].id);

    // The next turn resumes the same thread; ask_builder runs in the Builder's Codex.
    const talk = await say(s, 'What changed in growth_funnel?');
    assert.equal(talk.status, 'completed', JSON.stringify(talk) + s.stderr.slice(-3000));
    assert.equal(talk.result, `The Builder says: ${builderAnswer}`);
    assert.equal(seen.resumed.headers['thread-id'], first.headers['thread-id'], 'the same thread');
    const replayed = JSON.stringify(seen.resumed.body.input);
    assert.ok(replayed.includes('PULSE TURN goal_check') && replayed.includes(summary), 'the first turn is in the resumed thread');
    assert.notEqual(seen.firstBuilder.headers['thread-id'], first.headers['thread-id']);
    assert.match(systemPrompt(seen.firstBuilder), /Builder chat of workflow "substack"/);
    assert.match(seen.builderHeld[0].content, /refused/);
    const answered = codexJson(seen.builderResult[0].content).result;
    assert.equal(answered.status, 'answered');
    assert.equal(answered.answer, builderAnswer);
    assert.deepEqual(unscripted, [], 'every request the programs made was one the test expected');
    for (const [path, bytes] of files(ws)) assert.equal(bytes.indexOf(KEY), -1, path);
  } finally {
    await s.stop();
    await m.close();
    tmp.cleanup();
  }
});

test('a preset program that is not installed: the server starts and says so, /api/health names it, its turn fails with one line naming it and how to install it, ask_builder fails the same way, and the server goes on', async () => {
  const { tmp, ws, nowFile } = setup('pulse-program-missing-');
  // A PATH with neither program on it.
  const s = await startServer(ws, ['--no-tick', '--now-file', nowFile, '--runner', 'claude', '--builder', 'codex'],
    { env: { PATH: '/usr/bin:/bin' } });
  try {
    // The server's log (stdout): one line at start.
    await waitFor(() => s.stdout.includes('--runner claude: Claude Code is not installed'), { what: 'the start\'s line' });
    assert.match(s.stdout, /--runner claude: Claude Code is not installed: no "claude" program on the server's PATH \(install it with `npm install -g @anthropic-ai\/claude-code@2\.1\.332`/);
    const health = (await request(`${s.url}api/health`)).body;
    assert.equal(health.turns.program.found, false);
    assert.match(health.turns.builder.error, /^--builder codex: Codex is not installed: .*npm install -g @openai\/codex@0\.171\.0/);
    const row = await say(s, 'Are we on track?');
    assert.equal(row.status, 'failed');
    assert.match(row.error, /^--runner claude: Claude Code is not installed: no "claude" program on the server's PATH \(install it with `npm install -g @anthropic-ai\/claude-code@2\.1\.332`/);
    assert.equal(row.error.split('\n').length, 1);
    const conversation = (await request(`${s.url}api/workflows/substack/conversation`)).body;
    assert.equal(conversation.turns.at(-1).state, 'failed');
    // ask_builder from a guarded session: the Builder program is missing.
    const sess = pulse(['session', 'open', '--workspace', ws, '--workflow', 'substack', '--turn', 'goal_check', '--now', NOW]).json;
    const asked = await request(`${s.url}s/${sess.session}/tools/custom/ask_builder`, { method: 'POST', token: sess.token,
      body: { kind: 'question', message: 'What changed?', wait_seconds: 30 } });
    assert.equal(asked.status, 200, asked.text);
    assert.equal(asked.body.result.status, 'builder_failed');
    assert.match(asked.body.result.error, /^--builder codex: Codex is not installed/);
    assert.equal((await request(`${s.url}api/health`)).status, 200, 'the server goes on');
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});

test('--model with a preset names the program\'s model; a provider the program does not speak, or --model with a runner command, is one line and exit 2', () => {
  const { tmp, ws } = setup('pulse-program-flags-');
  try {
    for (const [args, says] of [
      [['serve', '--workspace', ws, '--port', '0', '--runner', 'claude', '--model', 'openai:gpt-4o'],
        /^pulse: --model openai:gpt-4o: Claude Code speaks anthropic, not openai/],
      [['serve', '--workspace', ws, '--port', '0', '--runner', 'codex', '--model', 'anthropic:claude-x'],
        /^pulse: --model anthropic:claude-x: Codex speaks openai, not anthropic/],
      [['talk', '--workspace', ws, '--workflow', 'substack', '--message', 'x', '--runner', 'true', '--model', 'openai:m'],
        /^pulse: --runner and --model both say what thinks for the turns; give one/],
    ]) {
      const r = pulse(args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, says);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
  } finally {
    tmp.cleanup();
  }
});
