// Named starting points for the questions the seeds ask of a workflow
// database, as SQL the person sees, edits and runs. Where a question needs
// a value (which run? since when?) the newest one in the database is put
// in as a literal, for the person to change.
const literal = (v) => `'${String(v ?? '').replace(/'/g, "''")}'`;

export const STARTING_POINTS = [
  {
    id: 'running',
    label: 'Agents still running',
    tables: ['background_agent_log'],
    sql: () => `-- Agents that started and recorded no end: stuck, or still at work.
SELECT session_id, agent_id, name, kind, pulse_run_id, started_at
FROM background_agent_log
WHERE status = 'running'
ORDER BY started_at`,
  },
  {
    id: 'run',
    label: 'Runs of this pulse_run_id',
    tables: ['background_agent_log'],
    lookup: "SELECT pulse_run_id FROM background_agent_log WHERE pulse_run_id != '' ORDER BY started_at DESC LIMIT 1",
    sql: (run) => `-- Every agent of one run (the newest run is filled in: put yours).
SELECT agent_id, name, kind, status, started_at, completed_at, duration, error, result
FROM background_agent_log
WHERE pulse_run_id = ${literal(run)}
ORDER BY started_at`,
  },
  {
    id: 'failed',
    label: 'Failed runs since…',
    tables: ['goal_run_facts'],
    lookup: "SELECT substr(max(finished_at), 1, 10) FROM goal_run_facts",
    sql: (last) => `-- Runs that did not complete since a day (30 days before the newest run: change it).
SELECT run_id, route, status, error, started_at, finished_at
FROM goal_run_facts
WHERE status != 'completed'
  AND finished_at >= ${literal(last ? new Date(Date.parse(`${last}T00:00:00Z`) - 30 * 86400e3).toISOString().slice(0, 10) : '2000-01-01')}
ORDER BY finished_at DESC`,
  },
  {
    id: 'decisions',
    label: 'Decisions with their outcome',
    tables: ['pulse_decisions', 'pulse_recommendations'],
    sql: () => `-- Each decision: what Pulse recommended, what the owner did, and what came of it.
SELECT d.id, d.question, d.status,
       r.option AS recommended, r.confidence,
       d.answer_kind, coalesce(d.answer_option, d.answer_text) AS answer, d.answered_at,
       d.outcome, d.outcome_at
FROM pulse_decisions d
LEFT JOIN pulse_recommendations r
  ON r.id = (SELECT max(id) FROM pulse_recommendations WHERE decision_id = d.id)
ORDER BY d.created_at DESC`,
  },
  {
    id: 'refusals',
    label: 'Guard refusals by rule',
    tables: ['pulse_guard_decisions'],
    sql: () => `-- The autonomy guard's refusals, by the rule that refused.
SELECT rule, count(*) AS refusals, group_concat(DISTINCT tool) AS tools,
       min(at) AS first_at, max(at) AS last_at
FROM pulse_guard_decisions
WHERE allowed = 0
GROUP BY rule
ORDER BY refusals DESC`,
  },
  {
    id: 'agents-per-run',
    label: 'Agents of each workflow run',
    tables: ['goal_run_facts', 'background_agent_log'],
    sql: () => `-- Workflow runs with the background agents recorded under their id (pulse_run_id).
SELECT f.run_id, f.route, f.status, f.finished_at,
       count(a.agent_id) AS agents,
       sum(a.status = 'running') AS still_running
FROM goal_run_facts f
LEFT JOIN background_agent_log a ON a.pulse_run_id = f.run_id
GROUP BY f.run_id
ORDER BY f.finished_at DESC`,
  },
];

// The SQL of starting point `s`, its value looked up with `query(sql)`
// (the console's own read-only path) when it needs one.
export async function startingSql(s, query) {
  if (!s.lookup) return s.sql();
  let value = '';
  try {
    const r = await query(s.lookup);
    value = r.rows.length ? r.rows[0][0] : '';
  } catch {
    // none: the literal stays empty for the person to fill in
  }
  return s.sql(value);
}
