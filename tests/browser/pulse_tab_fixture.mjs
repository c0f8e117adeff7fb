// The Pulse tab's test database: the Substack fixture (the Substack case, built
// by tests/fixtures/make_substack.mjs with the real `pulse` program), plus
// what the tab's other cards need, made with the same real CLI at fixed
// times: pending decisions with Pulse's recommendations, one answered
// decision, and background-agent log rows (completed, running, stuck).
// A command that fails throws (the suite's `before` fails with its error):
// no test runs on a fixture with a card's data missing.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT, PULSE_BIN } from '../node/helpers.mjs';

export const FIXTURE_NOW = '2026-10-07T12:00:00Z';
export const MAKE_SUBSTACK = join(ROOT, 'tests', 'fixtures', 'make_substack.mjs');

// The case's alarm sentences, word for word, as the
// goal check writes them.
export const SEED_ALARMS = [
  'not measured by a workflow run for 20 days (last reading 17 Sep)',
  'growth_funnel ran 6 times since 17 Sep without a reading',
  'growth work has not completed for 11 days (the 10 runs since: publish_review ×6, research ×2, write_article ×1, one failed growth run)',
  'no run for 7 days with schedules paused',
];

export async function buildPulseTabFixture(dir) {
  const { makeSubstack } = await import(MAKE_SUBSTACK);
  const made = makeSubstack(dir, { pulseBin: PULSE_BIN });
  const common = ['--workspace', made.workspace, '--workflow', 'substack'];
  const pulse = (args, now) => execFileSync(PULSE_BIN, [...args, ...common, ...(now ? ['--now', now] : [])],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  const idOf = (out) => {
    const { id } = JSON.parse(out);
    if (!Number.isInteger(id)) throw new Error(`pulse decision create --json printed no id: ${out}`);
    return String(id);
  };

  const fixture = {
    dbPath: made.db,
    workspace: made.workspace,
    workflowDir: made.workflowDir,
    copyName: 'substack',
    decisionQuestion: 'Resume the paused schedules so growth_funnel runs again?',
    recommendedOption: 'Resume the schedules',
    secondQuestion: 'Add a subscriber reading at the end of growth_funnel?',
    answeredQuestion: 'Pause publishing while the goal is unmeasured?',
  };

  // A pending decision with a recommendation (accepted in the test).
  const d1 = idOf(pulse(['decision', 'create', '--question', fixture.decisionQuestion,
    '--option', fixture.recommendedOption, '--option', 'Keep them paused', '--blocks', 'growth_funnel runs', '--json'], '2026-10-04T12:00:00Z'));
  pulse(['decision', 'recommend', '--id', d1, '--option', fixture.recommendedOption,
    '--why', 'Growth work has not completed for 11 days and nothing runs while the schedules are paused.',
    '--evidence', 'goal check 7 Oct: no run for 7 days with schedules paused', '--confidence', 'high'],
    '2026-10-04T12:05:00Z');
  // A second pending one (left pending: the keyboard test opens its Change form).
  const d2 = idOf(pulse(['decision', 'create', '--question', fixture.secondQuestion,
    '--option', 'Yes, record it', '--option', 'No', '--blocks', 'the goal check', '--json'], '2026-10-06T09:00:00Z'));
  pulse(['decision', 'recommend', '--id', d2, '--option', 'Yes, record it',
    '--why', 'growth_funnel ran 6 times since 17 Sep without a reading.', '--confidence', 'medium'], '2026-10-06T09:01:00Z');
  // One answered decision with its result, for the log.
  const d3 = idOf(pulse(['decision', 'create', '--question', fixture.answeredQuestion,
    '--option', 'Pause', '--option', 'Keep publishing', '--json'], '2026-09-20T10:00:00Z'));
  pulse(['decision', 'recommend', '--id', d3, '--option', 'Keep publishing', '--why', 'Publishing is not what is failing.',
    '--confidence', 'medium'], '2026-09-20T10:01:00Z');
  pulse(['decision', 'answer', '--id', d3, '--accept', '--note', 'agreed'], '2026-09-21T08:00:00Z');
  pulse(['decision', 'outcome', '--id', d3, '--result', 'Publishing went on; 3 articles out.'], '2026-09-28T08:00:00Z');

  // Pulse run p-1006: Gate and a reviewer, both completed.
  pulse(['agent-log', 'started', '--session', 'schedule-goallead--substack-g1', '--agent', 'gate-1', '--name', 'Gate',
    '--kind', 'gate', '--run-id', 'p-1006', '--at', '2026-10-06T09:00:00Z'], '2026-10-06T09:00:00Z');
  pulse(['agent-log', 'completed', '--session', 'schedule-goallead--substack-g1', '--agent', 'gate-1', '--status', 'completed',
    '--result', 'goal check due; goal work due', '--duration', '41s', '--at', '2026-10-06T09:00:41Z'], '2026-10-06T09:00:41Z');
  pulse(['agent-log', 'started', '--session', 'schedule-goallead--substack-g1', '--agent', 'review-1', '--name', 'Reviewer',
    '--kind', 'reviewer', '--parent', 'gate-1', '--run-id', 'p-1006', '--at', '2026-10-06T09:01:00Z'], '2026-10-06T09:01:00Z');
  pulse(['agent-log', 'completed', '--session', 'schedule-goallead--substack-g1', '--agent', 'review-1', '--status', 'completed',
    '--result', 'changed: growth_funnel records a reading', '--duration', '3m10s', '--at', '2026-10-06T09:04:10Z'], '2026-10-06T09:04:10Z');
  // The Fixer started and never recorded finishing: stuck at 7 Oct 12:00.
  pulse(['agent-log', 'started', '--session', 'schedule-goallead--substack-g1', '--agent', 'fixer-1', '--name', 'Fixer',
    '--kind', 'fixer', '--run-id', 'p-1006', '--at', '2026-10-06T09:05:00Z'], '2026-10-06T09:05:00Z');
  // A builder-chat delegation still running, recently started.
  pulse(['agent-log', 'started', '--session', 'builder-7f3a', '--agent', 'sub-1', '--name', 'research helper',
    '--kind', 'call_sub_agent', '--at', '2026-10-07T11:50:00Z'], '2026-10-07T11:50:00Z');
  return fixture;
}
