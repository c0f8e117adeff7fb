#!/usr/bin/env bash
# The main job: installs what is missing, builds, generates a demo workspace
# (once; PULSE_DEMO_FRESH=1 makes a new one) and serves it with `pulse serve`,
# so the Pulse tab shows a real workflow in the Substack case and a healthy
# one. Environment: PULSE_WORKSPACE (serve this workspace instead of the
# demo), PULSE_DEMO_WORKSPACE (where the demo goes; default demo-workspace/),
# PULSE_HOST (default 127.0.0.1), PULSE_PORT (default 8080), PULSE_RUNNER
# (an external runner command; default the built-in rules runner),
# PULSE_OTLP_ENDPOINT (an OpenTelemetry collector's OTLP/HTTP base URL, such
# as http://127.0.0.1:4318: every agent and guarded tool call as a span).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
bash scripts/setup.sh

WS=${PULSE_WORKSPACE:-}
if [ -z "$WS" ]; then
  WS=${PULSE_DEMO_WORKSPACE:-$ROOT/demo-workspace}
  if [ "${PULSE_DEMO_FRESH:-0}" = 1 ]; then rm -rf "$WS"; fi
  if [ ! -d "$WS/Workflow" ]; then
    node scripts/demo_workspace.mjs "$WS" --pulse build/native/pulse
  fi
fi

ARGS=(serve --workspace "$WS" --host "${PULSE_HOST:-127.0.0.1}" --port "${PULSE_PORT:-8080}")
if [ -n "${PULSE_RUNNER:-}" ]; then ARGS+=(--runner "$PULSE_RUNNER"); fi
if [ -n "${PULSE_OTLP_ENDPOINT:-}" ]; then ARGS+=(--otlp-endpoint "$PULSE_OTLP_ENDPOINT"); fi
# The demo built from the Substack fixture runs on the fixture's day.
if [ -f "$WS/.pulse/demo-now" ]; then ARGS+=(--now-file "$WS/.pulse/demo-now"); fi
echo "run: serving $WS — open the URL below in a browser; Ctrl-C stops the server"
echo "run: Prometheus can scrape http://${PULSE_HOST:-127.0.0.1}:${PULSE_PORT:-8080}/metrics (docs/observability.md: scrape config, alert rules, Grafana dashboard)"
if [ -z "${PULSE_OTLP_ENDPOINT:-}" ]; then
  echo "run: PULSE_OTLP_ENDPOINT=http://127.0.0.1:4318 sends every agent and tool call to an OpenTelemetry collector as a span"
fi
# The owner token is shown once, when the workspace first gets one.
echo "run: lost the owner token? build/native/pulse token rotate --workspace $WS prints a new one"
exec build/native/pulse "${ARGS[@]}"
