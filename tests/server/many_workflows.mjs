// A workspace of many realistic workflows, made fast: one template workflow
// is built with the real `pulse` program (a goal, RUNS runs imported from
// schedule-runs.json, readings, a recorded goal check, a few decisions), then
// its folder is copied N times, each copy with its own workflow.json (its own
// target and baseline) so no two are the same workflow.
import { copyFileSync, linkSync, mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pulse } from './helpers.mjs';

// The clock the template is made at: its goal check is recorded on this day,
// so a server started later the same day finds nothing due.
export const MANY_MADE_AT = '2026-10-07T08:00:00Z';

const DAY = 86400 * 1000;
const iso = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function manyConfig(i) {
  return {
    pulse: { enabled: true, autonomy: { run: 'ask', outward: 'ask', change: 'ask', answer: 'recommend' } },
    goal: {
      primary_metric: {
        name: 'readers', route: 'publish', direction: 'increase', target: 500 + (i % 500),
        baseline: 100 + (i % 50), baseline_at: '2026-06-01T00:00:00Z', deadline: '2027-06-30T00:00:00Z',
      },
    },
    schedules: [{ id: 'daily', cron: '0 9 * * *', enabled: true }],
  };
}

// `runs` finished runs, the newest two days before MANY_MADE_AT (so none is
// a failed run of the last day the safety net would pick up).
function scheduleRuns(runs) {
  const last = Date.parse(MANY_MADE_AT) - 2 * DAY;
  const out = [];
  for (let k = 0; k < runs; k++) {
    const start = last - (runs - 1 - k) * (DAY / 8);
    out.push({
      run_id: `r-${String(k).padStart(5, '0')}`, schedule_id: 'daily', started_at: iso(start),
      finished_at: iso(start + 20 * 60 * 1000), status: k % 17 === 5 ? 'failed' : 'completed',
      route: k % 3 === 0 ? 'publish' : 'research',
    });
  }
  return out;
}

function must(args) {
  const r = pulse(args, { timeout: 120000 });
  if (r.status !== 0) throw new Error(`pulse ${args.slice(0, 2).join(' ')}: ${r.stderr}`);
  return r;
}

export const manyName = (i) => `wf-${String(i).padStart(5, '0')}`;

// Builds the first workflow, wf-00000, in `ws`; returns its folder.
function buildTemplate(ws, runs, imported) {
  const name = manyName(0);
  const dir = join(ws, 'Workflow', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'workflow.json'), JSON.stringify(manyConfig(0), null, 2));
  const runsFile = join(dir, 'schedule-runs.json');
  writeFileSync(runsFile, JSON.stringify(imported ? scheduleRuns(runs) : []));
  const common = ['--workspace', ws, '--workflow', name];
  const readingsFrom = Date.parse(MANY_MADE_AT) - 30 * DAY;
  for (let d = 0; d < 5; d++) {
    const at = iso(readingsFrom + d * 6 * DAY);
    must(['observe', ...common, '--metric', 'readers', '--value', String(120 + d * 10), '--at', at,
      '--source', 'manual', '--now', at]);
  }
  for (let q = 0; q < 3; q++) {
    const created = must(['decision', 'create', ...common, '--question', `Which topic next (${q})?`,
      '--option', 'Keep the schedule', '--option', 'Try a new topic', '--now', MANY_MADE_AT]);
    const id = created.stdout.trim().split(/\s+/).pop();
    must(['decision', 'recommend', ...common, '--id', id, '--option', 'Keep the schedule',
      '--why', 'the readers grow on the current schedule', '--confidence', 'medium', '--now', MANY_MADE_AT]);
  }
  // The runs come in (from schedule-runs.json) and today's check is recorded.
  must(['check', ...common, '--record', '--now', MANY_MADE_AT]);
  // Not imported: the platform's file arrives after, so the database knows
  // none of its runs (a workspace Pulse has never ticked).
  if (!imported) writeFileSync(runsFile, JSON.stringify(scheduleRuns(runs)));
  return dir;
}

// `count` workflows named wf-00000...; returns their names. The database is
// copied; schedule-runs.json (the platform's file, which Pulse only reads) is
// hard-linked to keep 10,000 copies small. `imported: false`: the databases
// hold none of the file's runs yet.
export function makeManyWorkflows(ws, count, { runs = 1000, imported = true } = {}) {
  const template = buildTemplate(ws, runs, imported);
  const db = join(template, 'db', 'db.sqlite');
  const names = [manyName(0)];
  for (let i = 1; i < count; i++) {
    const name = manyName(i);
    const dir = join(ws, 'Workflow', name);
    mkdirSync(join(dir, 'db'), { recursive: true });
    copyFileSync(db, join(dir, 'db', 'db.sqlite'));
    linkSync(join(template, 'schedule-runs.json'), join(dir, 'schedule-runs.json'));
    writeFileSync(join(dir, 'workflow.json'), JSON.stringify(manyConfig(i), null, 2));
    names.push(name);
  }
  return names;
}

export function templateDbBytes(ws) {
  return readFileSync(join(ws, 'Workflow', manyName(0), 'db', 'db.sqlite')).length;
}
