// The Run health card rendered in Node from the documents the core returns
// (goal.check's facts.run_health, qa.failed_runs, request.list kind qa): the
// line that this workflow's Pulse handles QA and architecture (only with a
// goal), the failed run Pulse was woken for with its outcome, unreadable run
// folders, schedules and the QA results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { render } from 'preact-render-to-string';
import { html } from 'htm/preact';
import { RunHealthCard } from '../../web/cards/run-health.mjs';

const NOW = Date.parse('2026-10-07T12:00:00Z');
const HEALTH = {
  runs: 2, completed: 1, failed: 1,
  failed_runs: [
    { run_id: 'r-0121', finished_at: '2026-10-07T06:00:00Z', status: 'interrupted', error: 'step export: interrupted', route: 'growth_funnel', goal_route: true },
    { run_id: 'r-0120', finished_at: '2026-10-06T09:00:00Z', status: 'failed', error: 'timeout', route: 'research', goal_route: false },
  ],
  concerns: [{ run_id: 'r-0121', line: 'CONCERNS: export stopped halfway' }],
  open_issues: 1,
  schedules: [{ id: 'morning', enabled: false, runs: 1, completed: 0, failed: 1, last_status: 'failed', last_finished_at: '2026-10-06T09:00:00Z' }],
  unreadable: [{ folder: 'iteration-7', reason: 'runs/iteration-7/default/run.json: missing', line: 'unreadable: runs/iteration-7/default/run.json: missing' }],
};
const check = (status) => ({ status, facts: { since: '2026-10-01T12:00:00Z', last_check_at: null, run_health: HEALTH } });
const WOKEN = { failed_runs: [{ run_id: 'r-0121', finished_at: '2026-10-07T06:00:00Z', status: 'interrupted', route: 'growth_funnel',
  error: 'step export: interrupted', concerns: ['CONCERNS: export stopped halfway'], outcome: 'completed: QA requested (request 2)' }] };
const QA = { requests: [
  { id: 2, kind: 'qa', what: 'Run r-0121 interrupted', status: 'pending', created_at: '2026-10-07T12:00:10Z' },
  { id: 1, kind: 'qa', what: 'the export fails with 401', status: 'done', created_at: '2026-10-07T11:00:00Z',
    detail: { qa_result: { status: 'completed', technical_review: 'the API key expired', reason: 'rotated it' } } },
] };

test('the Run health card of a goal workflow: who owns QA, the woken run with its outcome, QA results', () => {
  const out = render(html`<${RunHealthCard} check=${check('not_measured')} qa=${QA} failedRuns=${WOKEN} nowMs=${NOW} />`);
  assert.match(out, /This workflow's Pulse handles QA and architecture; results show in its conversation\./);
  assert.match(out, /Pulse: completed: QA requested \(request 2\)/);
  assert.equal((out.match(/data-run="r-0121"/g) || []).length, 1, 'the woken run is listed once');
  assert.match(out, /data-run="r-0120"/);
  assert.match(out, /unreadable: runs\/iteration-7\/default\/run.json: missing/);
  assert.match(out, /morning<\/code> \(paused\): 1 run, 1 failed/);
  assert.match(out, /1 open issue/);
  assert.match(out, /the API key expired/);
  assert.match(out, /data-status="pending"/);
});

test('without a goal the card has no ownership line; without facts no card', () => {
  const out = render(html`<${RunHealthCard} check=${check('no_goal')} qa=${{ requests: [] }} nowMs=${NOW} />`);
  assert.doesNotMatch(out, /handles QA and architecture/);
  assert.match(out, /Run health/);
  assert.equal(render(html`<${RunHealthCard} check=${{ status: 'on_track' }} nowMs=${NOW} />`), '');
});
