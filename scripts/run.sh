#!/usr/bin/env bash
# The main job: installs what is missing, builds, generates a demo workspace
# (once; PULSE_DEMO_FRESH=1 makes a new one) and serves it with `pulse serve`,
# so the Pulse tab shows a real workflow in the Substack case and a healthy
# one. Environment: PULSE_WORKSPACE (serve this workspace instead of the
# demo), PULSE_DEMO_WORKSPACE (where the demo goes; default demo-workspace/),
# PULSE_HOST (default 127.0.0.1), PULSE_PORT (default 8080), PULSE_RUNNER
# (claude or codex: the real Claude Code or Codex thinks for Pulse's turns;
# or an external runner command; default the built-in rules runner),
# PULSE_BUILDER (claude, codex or a command: the Builder chat ask_builder and
# Accept's apply message reach), PULSE_MODEL (a model thinks for Pulse's
# turns: openai:NAME or anthropic:NAME; with PULSE_RUNNER=claude|codex, the
# program's model), PULSE_MODEL_URL and PULSE_MODEL_KEY_ENV (docs/models.md),
# PULSE_OTLP_ENDPOINT (an OpenTelemetry collector's OTLP/HTTP base URL, such
# as http://127.0.0.1:4318: every agent and guarded tool call as a span).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# PULSE_RUN_DRY=1 prints the serve command instead of running it (the tests
# check what passes through), without installing or building.
if [ "${PULSE_RUN_DRY:-0}" != 1 ]; then bash scripts/setup.sh; fi

WS=${PULSE_WORKSPACE:-}
if [ -z "$WS" ]; then
  WS=${PULSE_DEMO_WORKSPACE:-$ROOT/demo-workspace}
  if [ "${PULSE_DEMO_FRESH:-0}" = 1 ]; then rm -rf "$WS"; fi
  if [ ! -d "$WS/Workflow" ] && [ "${PULSE_RUN_DRY:-0}" != 1 ]; then
    node scripts/demo_workspace.mjs "$WS" --pulse build/native/pulse
  fi
fi

ARGS=(serve --workspace "$WS" --host "${PULSE_HOST:-127.0.0.1}" --port "${PULSE_PORT:-8080}")
if [ -n "${PULSE_RUNNER:-}" ]; then ARGS+=(--runner "$PULSE_RUNNER"); fi
if [ -n "${PULSE_OTLP_ENDPOINT:-}" ]; then ARGS+=(--otlp-endpoint "$PULSE_OTLP_ENDPOINT"); fi
if [ -n "${PULSE_BUILDER:-}" ]; then ARGS+=(--builder "$PULSE_BUILDER"); fi
if [ -n "${PULSE_MODEL:-}" ]; then ARGS+=(--model "$PULSE_MODEL"); fi
if [ -n "${PULSE_MODEL_URL:-}" ]; then ARGS+=(--model-url "$PULSE_MODEL_URL"); fi
if [ -n "${PULSE_MODEL_KEY_ENV:-}" ]; then ARGS+=(--model-key-env "$PULSE_MODEL_KEY_ENV"); fi
# The demo built from the Substack fixture runs on the fixture's day.
if [ -f "$WS/.pulse/demo-now" ]; then ARGS+=(--now-file "$WS/.pulse/demo-now"); fi
echo "run: serving $WS — open the URL below in a browser; Ctrl-C stops the server"
echo "run: Prometheus can scrape http://${PULSE_HOST:-127.0.0.1}:${PULSE_PORT:-8080}/metrics (docs/observability.md: scrape config, alert rules, Grafana dashboard)"
if [ -z "${PULSE_OTLP_ENDPOINT:-}" ]; then
  echo "run: PULSE_OTLP_ENDPOINT=http://127.0.0.1:4318 sends every agent and tool call to an OpenTelemetry collector as a span"
fi
if [ "${PULSE_RUNNER:-}" = claude ] || [ "${PULSE_RUNNER:-}" = codex ]; then
  echo "run: Pulse thinks with the real $PULSE_RUNNER program${PULSE_MODEL:+ ($PULSE_MODEL)}, Pulse's MCP its only tools (docs/models.md)"
elif [ -n "${PULSE_MODEL:-}" ]; then
  echo "run: Pulse thinks with $PULSE_MODEL${PULSE_MODEL_URL:+ at $PULSE_MODEL_URL}"
else
  echo "run: Pulse's turns use the built-in rules runner; PULSE_MODEL=openai:NAME (with PULSE_MODEL_URL for Ollama and other local servers) or anthropic:NAME gives it a model, PULSE_RUNNER=claude or codex the real Claude Code or Codex (docs/models.md)"
fi
# The owner token is shown once, when the workspace first gets one.
echo "run: lost the owner token? build/native/pulse token rotate --workspace $WS prints a new one"
if [ "${PULSE_RUN_DRY:-0}" = 1 ]; then printf '%s\n' build/native/pulse "${ARGS[@]}"; exit 0; fi
exec build/native/pulse "${ARGS[@]}"
