#!/usr/bin/env bash
# Runs sql.js's own test suite (vendored unchanged in tests/sqljs-suite/suite/)
# against our WASM build (build/wasm, or PULSE_WASM_DIR) and against npm
# sql.js (node_modules/sql.js, the reference). Nothing is fetched: the suite's
# files, licence and source commit are in the repository.
#
#   scripts/sqljs-suite.sh            both
#   scripts/sqljs-suite.sh pulse      ours only
#   scripts/sqljs-suite.sh sqljs      npm sql.js only
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SUITE="$ROOT/tests/sqljs-suite/suite"
targets=${1:-both}
[ "$targets" = both ] && targets="pulse sqljs"

status=0
for target in $targets; do
  case "$target" in
    pulse) lib=pulse ;;   # tests/sqljs-suite/dist/sql-pulse.js: initPulse
    sqljs) lib=wasm ;;    # tests/sqljs-suite/dist/sql-wasm.js: npm sql.js
    *) echo "sqljs-suite: unknown target \"$target\" (pulse, sqljs or both)" >&2; exit 2 ;;
  esac
  echo "== sql.js test suite against $target"
  # npm sql.js warns on stderr each time a legacy extension function runs.
  out=$(cd "$SUITE" && node all.js "$lib" 2>&1 | grep -v 'is deprecated and will be disabled')
  echo "$out" | grep -E '^(OK|FAIL) |^Passed:|^(Assertion|Error|    at )' | grep -v '^    at node:'
  summary=$(echo "$out" | grep -E '^Passed:' || true)
  [ "$summary" = "Passed:24 Failed:0 Errors:0" ] || status=1
done
exit $status
