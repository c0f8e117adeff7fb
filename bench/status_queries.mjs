// The goal check's own queries (core/goal/goal_check.cc, core/goal/goal_facts.cc), with
// the Substack fixture's values bound, for the sql.js side of
// bench/web_open.mjs: the same reads the WASM core makes for the status card.
const NOW = "'2026-10-07T12:00:00Z'";
const METRIC = "'subscribers'";
const ROUTE = "'growth_funnel'";
const LAST_BY_RUN = "'2026-09-17T09:30:00Z'";

export const STATUS_QUERIES = {
  config: 'SELECT * FROM pulse_workflow_config',
  recorded: `SELECT id, checked_at, status, fingerprint, pause_reported FROM pulse_goal_checks WHERE checked_at <= ${NOW} ORDER BY checked_at DESC, id DESC LIMIT 1`,
  maxRun: 'SELECT max(rowid) FROM goal_run_facts',
  maxReading: 'SELECT max(rowid) FROM pulse_goal_observations',
  lastRun: `SELECT finished_at FROM goal_run_facts WHERE finished_at <= ${NOW} ORDER BY finished_at DESC LIMIT 1`,
  latest: `SELECT at, value, source, run_id FROM pulse_goal_observations WHERE metric = ${METRIC} AND at <= ${NOW} ORDER BY at DESC, source DESC, run_id DESC LIMIT 1`,
  first: `SELECT at, value, source, run_id FROM pulse_goal_observations WHERE metric = ${METRIC} ORDER BY at, source, run_id LIMIT 1`,
  lastTwoByRun: `SELECT at, value, source, run_id FROM pulse_goal_observations WHERE metric = ${METRIC} AND source = 'workflow_run' AND at <= ${NOW} ORDER BY at DESC LIMIT 2`,
  outside: `SELECT at, value, source, run_id FROM pulse_goal_observations WHERE metric = ${METRIC} AND source IN ('builder_chat', 'manual') AND at > ${LAST_BY_RUN} AND at <= ${NOW} ORDER BY at DESC LIMIT 20`,
  goalRunsWithoutReading: `SELECT count(*) FROM goal_run_facts WHERE route = ${ROUTE} AND finished_at > ${LAST_BY_RUN} AND finished_at <= ${NOW} AND primary_reading = 0`,
  lastGoalCompleted: `SELECT finished_at FROM goal_run_facts WHERE route = ${ROUTE} AND completed = 1 AND finished_at <= ${NOW} ORDER BY finished_at DESC LIMIT 1`,
  runsSince: `SELECT route, completed, count(*) FROM goal_run_facts WHERE finished_at > (SELECT max(finished_at) FROM goal_run_facts WHERE route = ${ROUTE} AND completed = 1 AND finished_at <= ${NOW}) AND finished_at <= ${NOW} GROUP BY route, completed`,
};
