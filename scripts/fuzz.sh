#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang, AddressSanitizer and
# UBSan (build/fuzz, incremental) and runs each one.
#
#   bash scripts/fuzz.sh                 every target for 60 s
#   bash scripts/fuzz.sh --seconds 120   every target for 120 s
#   bash scripts/fuzz.sh --ci            every target for 3 s (scripts/test.sh)
#   bash scripts/fuzz.sh mcp_fuzz ...    only the targets named
#
# Seeds come from the tests' fixtures (tests/fixtures) and tests/fuzz/seeds;
# what a run finds new is kept in build/fuzz/corpus for the next run. Every
# input in tests/fuzz/regressions/<target>/ (inputs that once crashed) is run
# first. A crash, leak, sanitizer report or timeout fails the run: the input
# is left in build/fuzz/crashes/ and the exit status is 1.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

SECONDS_EACH=60
TARGETS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --ci) SECONDS_EACH=3 ;;
    --seconds) SECONDS_EACH="$2"; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) TARGETS+=("$1") ;;
  esac
  shift
done

BUILD=build/fuzz
# ccache, where the machine has it (as scripts/build.sh); CCACHE_DISABLE=1
# measures a clean build.
LAUNCHER=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1
  LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# SQLite is not instrumented: the native build's library (scripts/build.sh)
# is linked as it is, when there is one.
SQLITE_LIB=()
[ -f build/native/libsqlite3.a ] && SQLITE_LIB=(-DPULSE_SQLITE_LIB="$ROOT/build/native/libsqlite3.a")
if [ ! -f "$BUILD/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPULSE_FUZZ=ON \
    "${LAUNCHER[@]}" "${SQLITE_LIB[@]}" >/dev/null \
    || { echo "fuzz: configure failed (needs Debian's clang and libfuzzer-14-dev)"; exit 1; }
fi
if ! ninja -C "$BUILD" -j "${PULSE_JOBS:-$(nproc)}" fuzz_targets >"$BUILD/build.log" 2>&1; then
  grep -E 'error|undefined reference' "$BUILD/build.log" | head -20
  echo "fuzz: build failed (see $BUILD/build.log)"
  exit 1
fi
[ ${#TARGETS[@]} -gt 0 ] || mapfile -t TARGETS < <(cd "$BUILD/fuzz" && ls -1 *_fuzz 2>/dev/null)
[ ${#TARGETS[@]} -gt 0 ] || { echo "fuzz: no targets were built"; exit 1; }

# Seed corpus: the fixtures' files of the kind each target reads.
seeds_for() {
  case "$1" in
    workflow_json_fuzz) find tests/fixtures -name workflow.json ;;
    run_json_fuzz) find tests/fixtures -name run.json ;;
    route_selection_json_fuzz) find tests/fixtures -name route_selection.json ;;
    schedule_runs_json_fuzz) find tests/fixtures -name schedule-runs.json ;;
    goal_md_fuzz) find tests/fixtures -name '*.md' ;;
  esac
}

mkdir -p "$BUILD/crashes"
TMP_PARENT=$(mktemp -d)
trap 'rm -rf "$TMP_PARENT"' EXIT
status=0
printf '%-28s %12s %10s  %s\n' target executions exec/s result
for t in "${TARGETS[@]}"; do
  bin="$BUILD/fuzz/$t"
  [ -x "$bin" ] || { echo "fuzz: no target $t"; status=1; continue; }
  corpus="$BUILD/corpus/$t"
  seeds="$BUILD/seeds/$t"
  mkdir -p "$corpus" "$seeds"
  while read -r f; do [ -n "$f" ] && cp "$f" "$seeds/$(echo "$f" | sha1sum | cut -c1-16)"; done < <(seeds_for "$t")
  [ -d "tests/fuzz/seeds/$t" ] && cp tests/fuzz/seeds/"$t"/* "$seeds/" 2>/dev/null
  log="$BUILD/$t.log"
  # Inputs that once crashed: each must now run clean.
  if [ -d "tests/fuzz/regressions/$t" ] && [ -n "$(ls -A "tests/fuzz/regressions/$t")" ]; then
    if ! TMPDIR="$TMP_PARENT" "$bin" tests/fuzz/regressions/"$t"/* >"$log" 2>&1; then
      printf '%-28s %12s %10s  %s\n' "$t" - - "REGRESSION (see $log)"
      status=1
      continue
    fi
  fi
  TMPDIR="$TMP_PARENT" "$bin" "$corpus" "$seeds" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -artifact_prefix="$BUILD/crashes/$t-" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  rate=$(grep -oE 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
  if [ $rc -eq 0 ]; then
    printf '%-28s %12s %10s  %s\n' "$t" "${runs:-?}" "${rate:-?}" ok
  else
    printf '%-28s %12s %10s  %s\n' "$t" "${runs:-?}" "${rate:-?}" "FAILED (exit $rc; see $log and $BUILD/crashes/)"
    grep -m3 -E 'ERROR: |runtime error|SUMMARY' "$log" | sed 's/^/    /'
    status=1
  fi
done
exit $status
