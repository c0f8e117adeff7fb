#!/usr/bin/env bash
# Runs every test suite: native GoogleTest (ctest), the libFuzzer targets for
# a few seconds each with every input that once crashed (scripts/fuzz.sh
# --ci; a crash fails the run), then the Node suites (WASM module, server,
# real headless Chromium) in one `npm test`, whose summary is the last thing
# printed. Installs and builds what is missing first.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
bash scripts/setup.sh || { echo "test: setup failed"; exit 1; }

status=0
ctest --test-dir build/native --output-on-failure -j "$(nproc)" || status=1
bash scripts/fuzz.sh --ci || status=1
# The real Claude Code and Codex for the preset tests, pinned, cached in
# .cache/programs/ (scripts/programs.sh). Where they cannot be installed the
# tests that need them say why (and fail in strict mode).
if PROGRAMS_BIN=$(bash scripts/programs.sh); then
  export PULSE_PROGRAMS_BIN="$PROGRAMS_BIN"
else
  echo "test: the preset programs could not be installed (scripts/programs.sh); their tests will say so"
fi
npm test || status=1
exit $status
