// Figures for decisions and goal memory in the real WASM module (in-memory
// database, the browser's path): create/recommend/answer per decision, list
// time against the number of decisions, and memory.add near the 60-entry cap.
// Run: node bench/decisions.mjs   (after scripts/build.sh)
import { loadPulseModule } from '../tests/node/helpers.mjs';

const M = await loadPulseModule();
function open() {
  const pp = M._malloc(4);
  M.ccall('sqlite3_open_v2', 'number', ['string', 'number', 'number', 'number'], [':memory:', pp, 6, 0]);
  const db = M.getValue(pp, 'i32');
  M._free(pp);
  const pulse = new M.Pulse({ db });
  const call = (method, args, now) => pulse.call(method, args, { now: Number.isFinite(now) ? now : undefined });
  return { call, close: () => M.ccall('sqlite3_close_v2', 'number', ['number'], [db]) };
}
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const now = Date.parse('2026-10-07T09:00:00Z') / 1000;

for (const n of [100, 1000]) {
  const { call, close } = open();
  let t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const { id } = call('decision.create', { question: `Q${i}?`, options: ['a', 'b'] }, now);
    call('decision.recommend', { id, option: 'a', why: 'w', confidence: 'medium' }, now);
    if (i % 2) call('decision.answer', { id, accept: true }, now);
  }
  const write = ms(t0);
  t0 = process.hrtime.bigint();
  const list = call('decision.list', {}, now + 2 * 86400);
  const listMs = ms(t0);
  console.log(`${n} decisions: create+recommend(+answer half) ${(write / n).toFixed(3)} ms/decision; ` +
    `list ${listMs.toFixed(1)} ms (${(listMs / n).toFixed(3)} ms/decision, outcomes_due ${list.outcomes_due.length})`);
  close();
}

{
  const { call, close } = open();
  let t0 = process.hrtime.bigint();
  for (let i = 0; i < 60; i++) call('memory.add', { section: 'lessons', source: 'result', text: `lesson ${i}` }, now + i * 86400);
  const add = ms(t0) / 60;
  t0 = process.hrtime.bigint();
  const c = call('memory.consolidate', {}, now);
  const cons = ms(t0);
  console.log(`goal memory: add ${add.toFixed(3)} ms/entry up to 60 entries; consolidate ${cons.toFixed(2)} ms ` +
    `(dropped ${c.dropped}); consolidate/add ratio ${(cons / add).toFixed(1)}`);
  close();
}
