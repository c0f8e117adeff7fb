// Bench for the agent log at volume: a workflow whose log holds ROWS rows
// (default 1,000,000: agents 25 s apart over about 290 days, sessions of 200,
// Pulse runs of 10, one failed in 37, one still running in 5,000), recorded
// in a database the real `pulse` made, then the real `pulse serve --no-tick`
// answering GET /api/workflows/<wf>/agent-log a page at a time with each
// filter the tab offers. Prints the median and the worst of ROUNDS requests
// per filter (the whole HTTP round trip), and the same read without limit
// for a 7-day period as the yardstick. The server keeps a read's answer
// while the database stands still, so each round asks at a clock one second
// later (?now=): every timed read walks the index; one more read repeated
// at the same clock is the answer from memory. Then the same filters through
// the command line (`pulse agent-log show --limit`), each a whole process.
//
//   node bench/agent_log_pages.mjs [--rows 1000000] [--rounds 15] [--limit 50]
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { makeTempDir, startServer, request, PULSE_BIN } from '../tests/server/helpers.mjs';
import { numberArg, median } from './common.mjs';

const ROWS = numberArg('--rows', 1000000);
const ROUNDS = numberArg('--rounds', 15);
const LIMIT = numberArg('--limit', 50);
const START = Date.parse('2026-01-01T00:00:00Z');
const iso = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const fmt = (n, d = 1) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

// The schema is made by the real `pulse` (agent-log show creates the
// database); the rows go in with plain SQL in one transaction through sql.js
// (a million commits through the recorder would take an hour here), and the
// file is written back for the server.
async function record(ws) {
  const made = spawnSync(PULSE_BIN, ['agent-log', 'show', '--workspace', ws, '--workflow', 'big'], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`agent-log show: ${made.stderr}`);
  const file = join(ws, 'Workflow', 'big', 'db', 'db.sqlite');
  const bytes = Uint8Array.from(readFileSync(file));
  bytes[18] = 1;  // rollback journaling for sql.js; set back to WAL below
  bytes[19] = 1;
  const SQL = await initSqlJs();
  const db = new SQL.Database(bytes);
  // The rows are made inside SQLite (a recursive count), not one call each.
  const t = (expr) => `strftime('%Y-%m-%dT%H:%M:%SZ', ${START / 1000} + ${expr}, 'unixepoch')`;
  db.run(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${ROWS - 1})
    INSERT INTO background_agent_log (workspace_path, session_id, agent_id, name, kind, pulse_run_id, status,
      result, started_at, completed_at, updated_at)
    SELECT 'Workflow/big', 'sess-' || (i / 200), 'agent-' || i, 'Agent ' || i, 'goal_check', 'pr-' || (i / 10),
      CASE WHEN i % 5000 = 0 THEN 'running' WHEN i % 37 = 0 THEN 'failed' ELSE 'completed' END,
      CASE WHEN i % 5000 = 0 THEN '' ELSE 'done' END, ${t('i * 25')},
      CASE WHEN i % 5000 = 0 THEN '' ELSE ${t('i * 25 + 20')} END, ${t('i * 25 + 20')} FROM n`);
  const out = db.export();
  db.close();
  out[18] = 2;
  out[19] = 2;
  writeFileSync(file, out);
}

const tmp = makeTempDir('pulse-bench-agentlog-');
const ws = join(tmp.dir, 'ws');
let server;
try {
  mkdirSync(join(ws, 'Workflow', 'big'), { recursive: true });
  writeFileSync(join(ws, 'Workflow', 'big', 'workflow.json'), '{}');
  let t0 = performance.now();
  await record(ws);
  console.log(`wrote ${ROWS.toLocaleString('en-US')} rows in ${fmt((performance.now() - t0) / 1000)} s`);
  server = await startServer(ws, ['--no-tick', '--now-file', join(tmp.dir, 'now')]);
  writeFileSync(join(tmp.dir, 'now'), `${iso(START + ROWS * 25000 + 3600000)}\n`);
  const now = START + ROWS * 25000 + 3600000;
  const week = iso(now - 7 * 86400000);
  const cases = [
    ['newest page, no filter', ''],
    ['status=failed', 'status=failed'],
    ['status=running', 'status=running'],
    ['session', `session=sess-${Math.floor(ROWS / 400)}`],
    ['Pulse run', `run_id=pr-${Math.floor(ROWS / 20)}`],
    ['last 7 days + running (the tab\'s default)', `since=${week}&include_running=true`],
    ['failed in the last 7 days', `status=failed&since=${week}`],
    ['session + failed + 7 days', `session=sess-${Math.floor((ROWS - 2000) / 200)}&status=failed&since=${week}`],
  ];
  let second = 0;  // each read one second later than the last
  const url = (q, limit = true, at = ++second) => `${server.url}api/workflows/big/agent-log?${limit ? `limit=${LIMIT}&` : ''}${q}${q ? '&' : ''}now=${iso(now + at * 1000)}`;
  const timed = async (u) => {
    const a = performance.now();
    const res = await request(u);
    return { ms: performance.now() - a, res };
  };
  console.log(`| read (limit ${LIMIT}) | rows | median ms | worst ms | again, from memory ms |`);
  console.log('|---|---|---|---|---|');
  const measure = async (what, q) => {
    const ms = [];
    let rows = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const { ms: t, res } = await timed(url(q));
      ms.push(t);
      if (res.status !== 200) throw new Error(`${what}: ${res.status} ${res.text}`);
      rows = res.body.rows.length;
    }
    const again = await timed(url(q, true, second));
    console.log(`| ${what} | ${rows} | ${fmt(median(ms))} | ${fmt(Math.max(...ms))} | ${fmt(again.ms)} |`);
  };
  // Untimed: the server's first open of the database and the first reads
  // of its pages from disk.
  await request(url(''));
  for (const [what, q] of cases) await measure(what, q);
  const first = await request(url(''));
  await measure('second page through next_cursor', `cursor=${encodeURIComponent(first.body.next_cursor)}`);
  const whole = [];
  let n = 0;
  for (let r = 0; r < 3; r++) {
    const { ms: t, res } = await timed(url(`since=${week}&include_running=true`, false));
    whole.push(t);
    n = res.body.rows.length;
  }
  console.log(`| yardstick: the same 7 days without limit (every row, oldest first) | ${n} | ${fmt(median(whole))} | ${fmt(Math.max(...whole))} | |`);

  // The command line: `pulse agent-log show --limit` per filter, the whole
  // process (start, open, one page, exit), as a person or a script runs it.
  await server.stop();
  server = null;
  const flags = {
    status: '--status', session: '--session', run_id: '--run-id', since: '--since', include_running: '--include-running',
  };
  const cliArgs = (q) => q.split('&').filter(Boolean).flatMap((kv) => {
    const [k, v] = kv.split('=');
    return v === 'true' ? [flags[k]] : [flags[k], decodeURIComponent(v)];
  });
  console.log(`\n| pulse agent-log show --limit ${LIMIT} --json | rows | median ms | worst ms |`);
  console.log('|---|---|---|---|');
  for (const [what, q] of cases) {
    const ms = [];
    let rows = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const a = performance.now();
      const out = spawnSync(PULSE_BIN, ['agent-log', 'show', '--workspace', ws, '--workflow', 'big', '--json',
        '--limit', String(LIMIT), '--now', iso(now), ...cliArgs(q)], { encoding: 'utf8' });
      ms.push(performance.now() - a);
      if (out.status !== 0) throw new Error(`${what}: pulse agent-log show: ${out.stderr}`);
      rows = JSON.parse(out.stdout).rows.length;
    }
    console.log(`| ${what} | ${rows} | ${fmt(median(ms))} | ${fmt(Math.max(...ms))} |`);
  }
} finally {
  if (server) await server.stop();
  tmp.cleanup();
}
