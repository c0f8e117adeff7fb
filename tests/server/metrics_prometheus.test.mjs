// GET /metrics against a real Prometheus: `promtool check metrics` takes the
// output; a real Prometheus on loopback scrapes a real `pulse serve` on the
// demo workspace every second, sees Substack's goal not measured and the
// turn counters move, and fires the goal alert of docs/prometheus/
// pulse-alerts.yml (checked by `promtool check rules`) for substack. The
// Grafana dashboard and the alert rules name only metrics the server serves.
// (Each gauge's and counter's value, the loopback rule and the workflow
// limit: metrics.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../node/helpers.mjs';
import { fileNeed, missingOf, skipUnless } from '../strict.mjs';
import { freePort, makeTempDir, PULSE_BIN, request, startServer, waitFor } from './helpers.mjs';

const PROMETHEUS = '/usr/bin/prometheus';
const PROMTOOL = '/usr/bin/promtool';
// Without them the test says why (and fails in strict mode: CI=true).
const skip = skipUnless(import.meta.url, missingOf([
  fileNeed(PROMETHEUS, "scripts/setup.sh installs Debian's prometheus"),
  fileNeed(PROMTOOL, "scripts/setup.sh installs Debian's prometheus"),
]));
const RULES = join(ROOT, 'docs', 'prometheus', 'pulse-alerts.yml');
const DASHBOARD = join(ROOT, 'docs', 'grafana', 'pulse-dashboard.json');

function promtool(args, input) {
  return spawnSync(PROMTOOL, args, { input, encoding: 'utf8', timeout: 30000 });
}

async function query(base, expr) {
  const r = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const doc = await r.json();
  assert.equal(doc.status, 'success', JSON.stringify(doc));
  return doc.data.result;
}

function demoWorkspace(dir) {
  const ws = join(dir, 'demo');
  const made = spawnSync('node', [join(ROOT, 'scripts', 'demo_workspace.mjs'), ws, '--pulse', PULSE_BIN], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  return ws;
}

// Metric names an expression uses: identifiers that start with pulse_.
function metricNames(expr) {
  return [...expr.matchAll(/\bpulse_[a-z_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, ''));
}

test('a real Prometheus scrapes /metrics, sees Substack not measured, the turns counted, and fires the goal alert', { skip, timeout: 180000 }, async () => {
  const tmp = makeTempDir('pulse-prom-');
  const ws = demoWorkspace(tmp.dir);
  const nowFile = join(ws, '.pulse', 'demo-now');
  const s = await startServer(ws, ['--tick-seconds', '0.5', '--now-file', nowFile]);
  let prom;
  try {
    assert.match(s.stdout, new RegExp(`^pulse: metrics ${s.url}metrics \\(Prometheus, loopback clients only\\)$`, 'm'));
    // The exposition itself: promtool's linter takes it, content type included.
    const first = await waitFor(async () => {
      const r = await request(`${s.url}metrics`);
      return r.status === 200 && /pulse_goal_status\{status="not_measured",workflow="substack"\} 1/.test(r.text) && r;
    }, { what: 'the gauges of the first refresh' });
    assert.match(first.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
    const checked = promtool(['check', 'metrics'], first.text);
    assert.equal(checked.status, 0, `promtool check metrics:\n${checked.stdout}${checked.stderr}`);
    // No workflow content beyond names: no ids, no messages.
    assert.doesNotMatch(first.text, /pr-\d|schedule-goallead|growth_funnel ran/);
    for (const wf of ['substack', 'digest', 'inbox']) assert.match(first.text, new RegExp(`pulse_workflow_up\\{workflow="${wf}"\\} 1`));
    // Requests are timed by route template, never by raw path.
    assert.equal((await request(`${s.url}api/workflows/substack/goal-status`)).status, 200);
    const timed = (await request(`${s.url}metrics`)).text;
    assert.match(timed, /^pulse_http_request_duration_seconds_count\{method="GET",route="\/api\/workflows\/\{workflow\}\/goal-status"\} [1-9]/m);
    assert.match(timed, /^pulse_http_request_duration_seconds_count\{method="GET",route="\/metrics"\} [1-9]/m);
    assert.doesNotMatch(timed, /route="[^"]*substack/);

    // The rules as documented, and a copy that fires at once.
    const rules = readFileSync(RULES, 'utf8');
    let r = promtool(['check', 'rules', RULES]);
    assert.equal(r.status, 0, `promtool check rules:\n${r.stdout}${r.stderr}`);
    assert.match(r.stdout, /SUCCESS: 3 rules found/);
    const fast = join(tmp.dir, 'rules.yml');
    writeFileSync(fast, rules.replace(/^(\s*)for: .*$/gm, '$1for: 0s'));
    // The dashboard and the rules name only metrics this server serves.
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8'));
    const exprs = [...JSON.stringify(dashboard).matchAll(/"expr":"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`));
    assert.ok(exprs.length >= 8, 'the dashboard has its panels');
    const served = new Set([...timed.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]));
    for (const name of [...exprs, rules].flatMap(metricNames)) assert.ok(served.has(name), `${name} is not served`);

    const port = await freePort();
    const config = join(tmp.dir, 'prometheus.yml');
    writeFileSync(config, [
      'global: {scrape_interval: 1s, evaluation_interval: 1s}',
      `rule_files: ['${fast}']`,
      'scrape_configs:',
      `  - {job_name: pulse, static_configs: [{targets: ['${new URL(s.url).host}']}]}`,
      '',
    ].join('\n'));
    r = promtool(['check', 'config', config]);
    assert.equal(r.status, 0, `promtool check config:\n${r.stdout}${r.stderr}`);
    let promErr = '';
    prom = spawn(PROMETHEUS, [`--config.file=${config}`, `--storage.tsdb.path=${join(tmp.dir, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: ['ignore', 'ignore', 'pipe'] });
    prom.stderr.on('data', (d) => { promErr += d; });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(async () => {
      if (prom.exitCode !== null) throw new Error(`prometheus exited ${prom.exitCode}: ${promErr}`);
      try { return (await fetch(`${base}/-/ready`)).ok; } catch { return false; }
    }, { what: 'Prometheus to be ready', timeoutMs: 30000 });

    const notMeasured = await waitFor(async () => {
      const res = await query(base, 'pulse_goal_status{workflow="substack",status="not_measured"} == 1');
      return res.length === 1 && res;
    }, { what: 'Prometheus to see substack not measured', timeoutMs: 30000 });
    assert.equal(notMeasured[0].metric.job, 'pulse');
    const onTrack = await query(base, 'pulse_goal_status{workflow="digest",status="on_track"}');
    assert.equal(onTrack[0].value[1], '1');

    // The tick's goal checks are turns; a message to Pulse is one more.
    const turns = async () => Number((await query(base, 'sum(pulse_turns_total)'))[0]?.value[1] || 0);
    const before = await waitFor(turns, { what: 'a turn counted', timeoutMs: 30000 });
    const sent = await request(`${s.url}api/workflows/substack/messages`, { method: 'POST', token: s.ownerToken, body: { text: 'How are we doing?' } });
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    await waitFor(async () => (await turns()) > before, { what: 'the turn counter to move', timeoutMs: 30000 });
    const askPulse = await query(base, 'pulse_turns_total{kind="ask_pulse"}');
    assert.ok(askPulse.length >= 1 && Number(askPulse[0].value[1]) >= 1, JSON.stringify(askPulse));
    // The tick's passes are timed.
    const passes = await query(base, 'pulse_tick_pass_duration_seconds_count');
    assert.ok(passes.length === 1 && Number(passes[0].value[1]) >= 1, JSON.stringify(passes));

    const alert = await waitFor(async () => {
      const doc = await (await fetch(`${base}/api/v1/alerts`)).json();
      return doc.data.alerts.find((a) => a.labels.alertname === 'PulseGoalNotMeasured' && a.labels.workflow === 'substack' && a.state === 'firing');
    }, { what: 'the goal alert to fire for substack', timeoutMs: 30000 });
    assert.match(alert.annotations.summary, /substack/);
    // Digest is measured: no goal alert for it.
    const all = (await (await fetch(`${base}/api/v1/alerts`)).json()).data.alerts;
    assert.equal(all.filter((a) => a.labels.alertname === 'PulseGoalNotMeasured' && a.labels.workflow === 'digest').length, 0);
  } finally {
    if (prom && prom.exitCode === null) {
      prom.kill('SIGTERM');
      await new Promise((res) => prom.on('exit', res));
    }
    await s.stop();
    tmp.cleanup?.();
  }
});
