// Guard throughput: decisions per second in the WASM module (no database,
// nothing recorded) and with a database (each decision recorded), and the
// cost of one `pulse guard` process. Prints figures and ratios; asserts nothing.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PULSE_BIN, loadPulseModule, makeTempDir } from '../tests/node/helpers.mjs';

const SAMPLE = [
  ['goal_work', 'update_step', { step_id: 's1' }],
  ['goal_check', 'gog', { args: ['--account', 'me@x.com', 'gmail', 'send'] }],
  ['ask_pulse', 'notify_user', { message: 'm', options: { deep: { email_cc: ['a@b.c'] } } }],
  ['goal_work', 'bash', { command: 'curl "$MCP_API_URL/s/a/tools/custom/update_step"' }],
  ['goal_work', 'write_file', { path: 'pulse/work/draft.md', content: 'x'.repeat(2000) }],
  ['run_failed', 'get_pulse_state', { view: 'goal_status' }],
];

const Module = await loadPulseModule();
const N = 20000;
const noDb = new Module.Pulse(null);
let t0 = performance.now();
for (let i = 0; i < N; i++) {
  const [turn, tool, args] = SAMPLE[i % SAMPLE.length];
  noDb.call('autonomy.guard', { turn, tool, args });
}
const bare = (performance.now() - t0) / N;

const pp = Module._malloc(4);
Module.ccall('sqlite3_open_v2', 'number', ['string', 'number', 'number', 'number'], [':memory:', pp, 6, 0]);
const db = Module.getValue(pp, 'i32');
const M = 5000;
const withDb = new Module.Pulse({ db });
t0 = performance.now();
for (let i = 0; i < M; i++) {
  const [turn, tool, args] = SAMPLE[i % SAMPLE.length];
  withDb.call('autonomy.guard', { turn, tool, args });
}
const recorded = (performance.now() - t0) / M;

const { dir, cleanup } = makeTempDir('pulse-bench-');
mkdirSync(join(dir, 'Workflow', 'demo'), { recursive: true });
writeFileSync(join(dir, 'Workflow', 'demo', 'workflow.json'), '{}');
const K = 20;
t0 = performance.now();
for (let i = 0; i < K; i++) {
  spawnSync(PULSE_BIN, ['guard', '--workspace', dir, '--workflow', 'demo', '--turn', 'goal_work', '--tool', 'update_step']);
}
const cli = (performance.now() - t0) / K;
cleanup();

console.log(`WASM autonomy.guard, no database:   ${(bare * 1000).toFixed(1)} µs/decision (${Math.round(1000 / bare)}/s)`);
console.log(`WASM autonomy.guard, recorded:      ${(recorded * 1000).toFixed(1)} µs/decision (${Math.round(1000 / recorded)}/s)`);
console.log(`pulse guard process (open + record): ${cli.toFixed(1)} ms/call`);
console.log(`ratio recorded/bare: ${(recorded / bare).toFixed(1)}x; process/recorded: ${(cli / recorded).toFixed(0)}x`);
