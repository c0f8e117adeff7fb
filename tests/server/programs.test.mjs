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
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  SUBSTACK_CONFIG, finishedGoalCheck, pulse, pulseAsync, request, sayToPulse, filesUnder, setNow, startServer, waitFor, substackWorkspace,
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
  const { tmp, ws, wf, nowFile } = substackWorkspace(prefix, CONFIG, NOW);
  writeFileSync(join(wf, 'chats.json'), JSON.stringify(OWNER_CHATS));
  // Files the programs' own tools would make if they ran.
  const marks = { bash: join(tmp.dir, 'bash-ran'), write: join(tmp.dir, 'write-ran'), patch: join(tmp.dir, 'patch-ran') };
  return { tmp, ws, wf, nowFile, marks };
}

const env = (extra = {}) => ({ PATH: `${PROGRAMS_BIN}:${process.env.PATH}`, ...extra });


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

// The story both programs are put through, in each one's names: `tool(name,
// args)` calls one of Pulse's tools (mcp__pulse__NAME for Claude Code, a tool
// of the namespace mcp__pulse for Codex), `ownTools` are calls of the
// program's own tools. Pulse's side: the goal check (record it, an
// update_step the guard refuses, the own tools), a decision, the summary;
// then the owner's message in the same generation, which asks the Builder.
// The Builder's side: an update_step its hold refuses, then its answer.
// `more.pulse(req, n)` / `more.builder(req, n)` go on from there. What each
// request and tool result was is kept in `seen`.
function story({ tool, ownTools, summary, builderAnswer, seen, more = {} }) {
  return {
    pulseSide: (req, n) => {
      const results = lastToolResults(req);
      if (n === 0) {
        seen.firstPulse = req;
        return { tools: [tool('record_pulse_goal_check', { verdict: 'not_measured', note: 'no reading by a run' }),
          tool('update_step', { step_id: 'growth_funnel', config: { record: 'subscribers' } }), ...ownTools] };
      }
      if (n === 1) {
        seen.afterTools = results;
        return { tools: [tool('create_decision_request', { question: 'Add a step to growth_funnel that records subscribers?',
          options: ['Add the step', 'Leave it'], why: 'no run has measured subscribers for 20 days' })] };
      }
      if (n === 2) {
        seen.decision = results;
        return { text: summary, usage: { input: 900, output: 90 } };
      }
      if (n === 3) {
        seen.resumed = req;
        return { tools: [tool('ask_builder', { kind: 'question', message: 'What changed in growth_funnel?', wait_seconds: 90 })] };
      }
      if (n === 4) {
        seen.builderResult = results;
        return { text: `The Builder says: ${builderAnswer}` };
      }
      return more.pulse ? more.pulse(req, n, results) : null;
    },
    builderSide: (req, n) => {
      if (n === 0) {
        seen.firstBuilder = req;
        return { tools: [tool('update_step', { step_id: 'growth_funnel', config: { x: 1 } })] };
      }
      if (n === 1) {
        seen.builderHeld = lastToolResults(req);
        return { text: builderAnswer };
      }
      return more.builder ? more.builder(req, n) : null;
    },
  };
}

// The scripted model server answering `sides` (router), with the test's key.
async function scriptedModel(sides) {
  const unscripted = [];
  const m = await startModelServer({ key: KEY, fallback: router(sides, unscripted) });
  return { m, unscripted };
}

// What the story's first turns must have left, whichever program ran them.
// `result(text)` reads a tool result's JSON (each program wraps it its way),
// `sessionOf(req)` the program's session of a request.
async function checkTheStory(s, { m, unscripted, seen, summary, builderAnswer, result, sessionOf, refused }) {
  const health = (await request(`${s.url}api/health`)).body;
  assert.equal(health.turns.thinks_with, 'program');
  assert.equal(health.turns.program.found, true);
  assert.equal(health.turns.program.key, 'set');
  assert.equal(health.turns.builder.found, true);

  // The daily goal check, run by the program.
  const row = await waitFor(() => finishedGoalCheck(s), { timeoutMs: 120000, what: 'the goal check' });
  assert.equal(row.status, 'completed', JSON.stringify(row) + s.stdout.slice(-3000));
  assert.equal(row.result, summary);
  assert.deepEqual(m.failures, []);
  assert.deepEqual(unscripted, []);
  // Pulse's charter as its system prompt, the turn's message as its prompt,
  // and no tool of its own (Codex keeps the readers of MCP resources: Pulse's).
  const first = seen.firstPulse;
  assert.equal(first.body.model, MODEL);
  assert.match(systemPrompt(first), /You are Pulse, the goal owner of workflow "substack"/);
  assert.match(systemPrompt(first), /your only tools are Pulse's, from its MCP server "pulse"/);
  assert.match(lastUserText(first), /^PULSE TURN goal_check/);
  const offered = toolNames(first);
  assert.ok(offered.includes('mcp__pulse__record_pulse_goal_check'), offered.join(' '));
  assert.ok(offered.includes('mcp__pulse__create_decision_request'));
  assert.deepEqual(offered.filter((t) => !t.startsWith('mcp__pulse__') && !/^(list|read)_mcp_resource/.test(t)), [],
    'no tool of its own');
  // record_pulse_goal_check went through and was recorded; update_step was
  // refused by the guard and the model read why.
  const [check, update] = seen.afterTools;
  assert.equal(result(check.content).result.recorded, true, check.content);
  assert.match(update.content, new RegExp(refused));
  const guard = (await request(`${s.url}api/workflows/substack/autonomy/decisions?session=${row.session_id}`)).body.decisions;
  assert.equal(guard.find((d) => d.tool === 'update_step').allowed, false);
  assert.equal(guard.find((d) => d.tool === 'update_step').rule, 'change_level');
  assert.equal(guard.find((d) => d.tool === 'record_pulse_goal_check').allowed, true);
  assert.equal((await request(`${s.url}api/workflows/substack/goal-status`)).body.status, 'not_measured');
  // The decision is there, pending.
  const pending = (await request(`${s.url}api/workflows/substack/decisions?status=pending`)).body.decisions;
  assert.equal(pending.length, 1);
  assert.equal(pending[0].question, 'Add a step to growth_funnel that records subscribers?');
  assert.equal(result(seen.decision[0].content).result.decision_id, pending[0].id);
  // The summary reached the owner, the tokens the agent log.
  const outbox = (await request(`${s.url}api/workflows/substack/outbox`)).body.messages;
  assert.equal(outbox.find((x) => x.kind === 'pulse_summary').text, summary);
  assert.ok(row.tokens.in > 0 && row.tokens.out > 0, JSON.stringify(row.tokens));

  // The owner's message: a turn in the same generation resumes the same
  // program session (its own transcript comes back to the model), and
  // Pulse's ask_builder runs in the Builder's program.
  const talk = await sayToPulse(s, 'What changed in growth_funnel?', { timeoutMs: 120000 });
  assert.equal(talk.status, 'completed', JSON.stringify(talk) + s.stdout.slice(-3000));
  assert.equal(talk.result, `The Builder says: ${builderAnswer}`);
  assert.equal(sessionOf(seen.resumed), sessionOf(first), 'the same session');
  const replayed = JSON.stringify(seen.resumed.body);
  assert.ok(replayed.includes('PULSE TURN goal_check') && replayed.includes(summary), 'the first turn is in the resumed session');
  assert.match(lastUserText(seen.resumed), /What changed in growth_funnel\?/);
  // The Builder's program: the Builder charter, Pulse's MCP its only tools,
  // held to builder_question (its update_step refused), a session of its own.
  assert.notEqual(sessionOf(seen.firstBuilder), sessionOf(first));
  assert.match(systemPrompt(seen.firstBuilder), /Builder chat of workflow "substack"/);
  assert.match(lastUserText(seen.firstBuilder), /What changed in growth_funnel\?/);
  assert.match(seen.builderHeld[0].content, /refused: update_step is a Change tool .* builder_question turn/);
  // Its answer came back to Pulse as ask_builder's result.
  const answered = result(seen.builderResult[0].content).result;
  assert.equal(answered.status, 'answered', seen.builderResult[0].content);
  assert.equal(answered.answer, builderAnswer);
  return { first, pending };
}

test('Claude Code as the runner (--runner claude) and the Builder chat (--builder claude): Pulse\'s MCP its only tools, a refused update_step reaching the model, the decision made, the check recorded, the answer the turn\'s, the next turn resuming its session (a new generation a new one, pulse talk too), ask_builder and the Accept\'s apply message answered by the Builder\'s Claude Code, its own Bash and Write doing nothing', { skip: skipClaude, timeout: 300000 }, async () => {
  const { tmp, ws, wf, nowFile, marks } = setup('pulse-claude-');
  const summary = 'Substack Pulse: not measured for 20 days; I asked you whether to add a measuring step.';
  const builderAnswer = 'growth_funnel lost its record_subscribers step on 1 Oct (a shorter plan).';
  const seen = {};
  const { m, unscripted } = await scriptedModel(story({
    tool: (name, args) => ({ name: `mcp__pulse__${name}`, arguments: args }),
    ownTools: [{ name: 'Bash', arguments: { command: `touch ${marks.bash}`, description: 'x' } },
      { name: 'Write', arguments: { file_path: marks.write, content: 'x' } }],
    summary, builderAnswer, seen,
    more: {
      pulse: (req, n, results) => {
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
      // The owner's answer: the apply message, in the same Builder chat's session.
      builder: (req, n) => {
        if (n !== 2) return null;
        seen.apply = req;
        return { text: 'Applied: growth_funnel records subscribers again.' };
      },
    },
  }));
  const sessionOf = (req) => req.headers['x-claude-code-session-id'];
  const s = await startServer(ws, ['--tick-seconds', '0.2', '--now-file', nowFile, '--runner', 'claude', '--builder', 'claude',
    '--model', `anthropic:${MODEL}`, '--model-url', m.anthropicUrl, '--runner-timeout', '120'], { env: env({ ANTHROPIC_API_KEY: KEY }) });
  try {
    const { first, pending } = await checkTheStory(s, { m, unscripted, seen, summary, builderAnswer, sessionOf, result: asJson,
      refused: '^refused: update_step is a Change tool and pulse\\.autonomy\\.change is ask in this goal_check turn; create a decision request instead' });
    assert.equal(first.format, 'anthropic');
    assert.equal(first.headers['x-api-key'], KEY);
    // Its own Bash and Write are not there: the model is told so, nothing ran.
    const [, update, bash, write] = seen.afterTools;
    assert.equal(update.is_error, true);
    assert.equal(bash.is_error, true);
    assert.match(bash.content, /No such tool available: Bash/);
    assert.match(write.content, /No such tool available: Write/);
    assert.ok(!existsSync(marks.bash) && !existsSync(marks.write), 'Bash and Write did nothing');

    // The owner answers the decision: the apply message goes to the Builder
    // chat, which is Claude Code, and the same session of that chat goes on.
    const accepted = await request(`${s.url}api/workflows/substack/decisions/${pending[0].id}/answer`, { method: 'POST',
      token: s.ownerToken, body: { option: 'Add the step' } });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.apply.delivered, true, accepted.text);
    assert.equal(accepted.body.apply.reply, 'Applied: growth_funnel records subscribers again.');
    assert.match(lastUserText(seen.apply), /Add the step/);
    assert.equal(sessionOf(seen.apply), sessionOf(seen.firstBuilder));

    // A month later the goal check starts a new generation: a new session.
    setNow(nowFile, '2026-11-08T12:00:00Z');
    await waitFor(() => seen.newGeneration, { timeoutMs: 120000, what: 'the new generation\'s goal check' });
    const conversation = await waitFor(async () => {
      const c = (await request(`${s.url}api/workflows/substack/conversation`)).body;
      return c.session_id.endsWith('-g2') && c.turns.at(-1).state === 'completed' ? c : null;
    }, { timeoutMs: 120000, what: 'generation 2' });
    assert.match(conversation.session_id, /^schedule-goallead--[0-9a-f]+-g2$/);
    assert.notEqual(sessionOf(seen.newGeneration), sessionOf(first));
    assert.ok(!JSON.stringify(seen.newGeneration.body.messages).includes(summary), 'nothing of generation 1');

    // The session token is in no file the programs were given: the MCP
    // configuration names its variable.
    for (const [path, bytes] of filesUnder(join(wf, 'pulse', 'programs'))) {
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
    assert.equal(sessionOf(seen.cli), sessionOf(seen.newGeneration));
    assert.equal(seen.cliResult[0].is_error, undefined, seen.cliResult[0].content);
    assert.match(seen.cliResult[0].content, /not_measured/);
    assert.deepEqual(unscripted, [], 'every request the programs made was one the test expected');
    for (const [path, bytes] of filesUnder(ws)) assert.equal(bytes.indexOf(KEY), -1, path);
  } finally {
    await s.stop();
    await m.close();
    tmp.cleanup();
  }
});

// What Codex hands back for a tool call: "Wall time: ...\nOutput:\n<text>".
const codexJson = (text) => asJson(text.slice(text.indexOf('{')));

test('Codex as the runner (--runner codex) and the Builder chat (--builder codex) over the Responses API: Pulse\'s MCP its only tools, a refused update_step reaching the model, the decision made, the check recorded, the answer the turn\'s, the next turn resuming its thread, ask_builder answered by the Builder\'s Codex, its own shell and apply_patch doing nothing', { skip: skipCodex, timeout: 300000 }, async () => {
  const { tmp, ws, nowFile, marks } = setup('pulse-codex-');
  const summary = 'Substack Pulse (Codex): not measured for 20 days; a decision waits for you.';
  const builderAnswer = 'The record_subscribers step was removed from growth_funnel on 1 Oct.';
  const seen = {};
  const { m, unscripted } = await scriptedModel(story({
    tool: (name, args) => ({ namespace: 'mcp__pulse', name, arguments: args }),
    ownTools: [{ name: 'exec_command', arguments: { cmd: `touch ${marks.bash}` } },
      { name: 'shell', arguments: { command: ['touch', marks.write] } },
      { name: 'apply_patch', arguments: { input: `*** Begin Patch\n*** Add File: ${marks.patch}\n+x\n*** End Patch` } }],
    summary, builderAnswer, seen,
  }));
  const s = await startServer(ws, ['--tick-seconds', '0.2', '--now-file', nowFile, '--runner', 'codex', '--builder', 'codex',
    '--model', `openai:${MODEL}`, '--model-url', m.openaiUrl, '--runner-timeout', '120'], { env: env({ OPENAI_API_KEY: KEY }) });
  try {
    const { first } = await checkTheStory(s, { m, unscripted, seen, summary, builderAnswer, result: codexJson,
      sessionOf: (req) => req.headers['thread-id'],
      refused: 'refused: update_step is a Change tool and pulse\\.autonomy\\.change is ask in this goal_check turn; create a decision request instead' });
    assert.equal(first.format, 'responses');
    assert.equal(first.path, '/v1/responses');
    assert.equal(first.headers.authorization, `Bearer ${KEY}`);
    assert.doesNotMatch(systemPrompt(first), /You are a coding agent running in the Codex CLI/, 'the charter replaces Codex\'s own instructions');
    assert.deepEqual(toolNames(first).filter((t) => !t.startsWith('mcp__pulse__')),
      ['list_mcp_resources', 'list_mcp_resource_templates', 'read_mcp_resource']);
    // Its own shell and apply_patch: unsupported calls, nothing ran.
    const [, , exec, shell, patch] = seen.afterTools;
    assert.match(exec.content, /unsupported call: exec_command/);
    assert.match(shell.content, /unsupported call: shell/);
    assert.match(patch.content, /unsupported call: apply_patch/);
    for (const mark of Object.values(marks)) assert.ok(!existsSync(mark), `${mark}: its own tools did nothing`);
    assert.deepEqual(unscripted, [], 'every request the programs made was one the test expected');
    for (const [path, bytes] of filesUnder(ws)) assert.equal(bytes.indexOf(KEY), -1, path);
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
    const row = await sayToPulse(s, 'Are we on track?', { timeoutMs: 120000 });
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
