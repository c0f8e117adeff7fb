// The server's goal check sees the runs the command line sees: runs older
// than Pulse's own records (schedule-runs.json) are imported by the tick
// before its goal check, as `pulse check` imports them, so the tick's
// recorded check and `pulse check` on a copy of the same workflow agree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  request, startServer, makeTempDir, makeWorkspace, pulse, setNow, waitFor, HEALTHY_CONFIG,
} from './helpers.mjs';

const NOW = '2026-10-07T12:00:00Z';
// Only schedule-runs.json knows these runs: the last goal-route run is
// yesterday, so a check that sees them raises no "no run" alarm.
const RUNS = [
  { run_id: 'old-1', schedule_id: 'daily', started_at: '2026-10-05T09:00:00Z', finished_at: '2026-10-05T09:30:00Z',
    status: 'completed', route: 'publish' },
  { run_id: 'old-2', schedule_id: 'daily', started_at: '2026-10-06T09:00:00Z', finished_at: '2026-10-06T09:30:00Z',
    status: 'completed', route: 'publish' },
];

test('the tick imports schedule-runs.json before its goal check, like pulse check', async () => {
  const tmp = makeTempDir('pulse-serve-schedule-runs-');
  const ws = makeWorkspace(tmp.dir, { older: HEALTHY_CONFIG });
  writeFileSync(join(ws, 'Workflow', 'older', 'schedule-runs.json'), JSON.stringify(RUNS));
  // The command line's answer, on a copy made before the server touches anything.
  const cliWs = join(tmp.dir, 'cli-ws');
  cpSync(ws, cliWs, { recursive: true });
  const cli = pulse(['check', '--workspace', cliWs, '--workflow', 'older', '--json', '--now', NOW]);
  assert.equal(cli.status, 0, cli.stderr);
  assert.ok(!cli.json.alarms.some((a) => a.kind === 'no_run'), JSON.stringify(cli.json.alarms));

  const nowFile = join(tmp.dir, 'now');
  setNow(nowFile, NOW);
  const s = await startServer(ws, ['--tick-seconds', '0.2', '--now-file', nowFile]);
  try {
    const row = await waitFor(async () => {
      const r = await request(`${s.url}api/workflows/older/agent-log`);
      const rows = r.body.rows.filter((x) => x.kind === 'goal_check');
      return rows.length && rows[0].status !== 'running' ? rows[0] : null;
    }, { what: 'the goal check turn' });
    assert.equal(row.status, 'completed', JSON.stringify(row));
    const routes = (await request(`${s.url}api/workflows/older/runs-by-route`)).body.routes;
    assert.deepEqual(routes.map((r) => [r.route, r.runs]), [['publish', 2]]);
    const served = (await request(`${s.url}api/workflows/older/goal-status`)).body;
    assert.equal(served.status, cli.json.status);
    assert.deepEqual(served.alarms, cli.json.alarms);
  } finally {
    await s.stop();
    tmp.cleanup();
  }
});
