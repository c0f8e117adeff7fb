#!/usr/bin/env bash
# Mutation smoke check (by hand; not in CI): breaks a safety rule on purpose,
# one mutation at a time, in a scratch clone of the committed HEAD, builds,
# runs the tests that guard that rule, and shows that they now FAIL. A
# mutation the tests let through "survived": the suite cannot tell the rule
# is gone.
#
#   bash scripts/mutate.sh              every mutation
#   bash scripts/mutate.sh agent-log    only the ones named
#   bash scripts/mutate.sh --list       the mutations, where each applies
#   bash scripts/mutate.sh --keep       keep the scratch clone (path printed)
#
# First the same tests run on the unmutated clone and must pass (else exit 2:
# nothing a mutation does could be told apart). Exit 0 when every mutation
# was caught, 1 when one survived, 2 when the check could not be made (a
# mutation's line is not found, the build or the baseline failed).
#
# Each mutation finds its file with `git ls-files` and its line by content,
# not by path or number, so it follows the code when files move. The build
# is build/native in the clone (ccache makes it quick after the first time;
# PULSE_JOBS limits the parallel jobs, as scripts/build.sh).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

# Each mutation: its name, its file (a `git ls-files` pattern), its line (an
# extended regex that must match exactly one line of exactly one such file),
# the sed expression applied to that line, and the tests that guard the rule
# (commands run in the clone, separated by ';').
NAMES=(sandbox-off agent-log)
FILES=('*sandbox.cc' '*decisions.cc')
LINES=('if \(abi > 0\) \{' 'FROM background_agent_log WHERE session_id = \?')
SEDS=('s/if \(abi > 0\)/if (abi > 0 \&\& false)/' 's/WHERE session_id = \?/WHERE 0 AND session_id = ?/')
TESTS=('node --test tests/server/serve_sandbox.test.mjs'
       "ctest --test-dir build/native --output-on-failure -R 'Decisions|OwnerOnlyAnswers';node --test tests/node/decisions_cli.test.mjs")

KEEP=0
LIST=0
ONLY=()
for a in "$@"; do
  case "$a" in
    --keep) KEEP=1 ;;
    --list) LIST=1 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) ONLY+=("$a") ;;
  esac
done

# The one file under `dir` matching `pattern` whose text has `line`, and
# that line's number: "file:number", or a reason on stderr.
locate() {
  local dir=$1 pattern=$2 line=$3 hits=()
  while read -r f; do
    [ -n "$f" ] && grep -Eq "$line" "$dir/$f" && hits+=("$f")
  done < <(git -C "$dir" ls-files "$pattern")
  if [ ${#hits[@]} -ne 1 ]; then
    echo "${#hits[@]} files matching $pattern hold /$line/ (${hits[*]:-none}); the mutation needs exactly one" >&2
    return 1
  fi
  local n
  n=$(grep -cE "$line" "$dir/${hits[0]}")
  if [ "$n" -ne 1 ]; then
    echo "${hits[0]} holds /$line/ $n times; the mutation needs exactly one" >&2
    return 1
  fi
  echo "${hits[0]}:$(grep -nE "$line" "$dir/${hits[0]}" | cut -d: -f1)"
}

selected() {
  [ ${#ONLY[@]} -eq 0 ] && return 0
  local n
  for n in "${ONLY[@]}"; do [ "$n" = "$1" ] && return 0; done
  return 1
}

if [ $LIST -eq 1 ]; then
  for i in "${!NAMES[@]}"; do
    site=$(locate "$ROOT" "${FILES[$i]}" "${LINES[$i]}" 2>&1)
    printf '%-12s %s\n    sed: %s\n    tests: %s\n' "${NAMES[$i]}" "$site" "${SEDS[$i]}" "${TESTS[$i]}"
  done
  exit 0
fi
for n in "${ONLY[@]}"; do
  printf '%s\n' "${NAMES[@]}" | grep -qx -- "$n" || { echo "mutate: no mutation named $n (--list shows them)"; exit 2; }
done

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/pulse-mutate-XXXXXX")
if [ $KEEP -eq 1 ]; then echo "mutate: scratch clone kept in $SCRATCH"; else trap 'rm -rf "$SCRATCH"' EXIT; fi
SRC="$SCRATCH/src"
git clone -q "$ROOT" "$SRC" || { echo "mutate: could not clone $ROOT"; exit 2; }
echo "mutate: scratch clone of $(git -C "$SRC" log -1 --format='%h %s' | cut -c1-70)"
[ -z "$(git status --porcelain --untracked-files=no)" ] || echo "mutate: (uncommitted changes of this checkout are not in it)"
# The Node suites import npm packages; the clone borrows this checkout's.
[ -d node_modules ] && ln -s "$ROOT/node_modules" "$SRC/node_modules"

# The native build the tests run (the program, the GoogleTest binary).
build() {
  local cc=()
  command -v clang++ >/dev/null 2>&1 && cc=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
  local launcher=()
  if command -v ccache >/dev/null 2>&1; then
    export CCACHE_BASEDIR="$SRC" CCACHE_NOHASHDIR=1
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  if [ ! -f "$SRC/build/native/build.ninja" ]; then
    cmake -S "$SRC" -B "$SRC/build/native" -G Ninja -DCMAKE_BUILD_TYPE=Release "${cc[@]}" "${launcher[@]}" >/dev/null || return 1
  fi
  ninja -C "$SRC/build/native" -j "${PULSE_JOBS:-$(nproc)}" pulse pulse_tests >"$SCRATCH/build.log" 2>&1
}

# Runs a mutation's tests in the clone: 0 when all pass. Output in `log`.
run_tests() {
  local tests=$1 log=$2 status=0 cmd
  : >"$log"
  IFS=';' read -r -a cmds <<<"$tests"
  for cmd in "${cmds[@]}"; do
    (cd "$SRC" && PULSE_STRICT=1 eval "$cmd") >>"$log" 2>&1 || status=1
  done
  return $status
}

echo "mutate: building the clone (build/native: pulse, pulse_tests)"
build || { echo "mutate: the build failed (see $SCRATCH/build.log; --keep keeps it)"; tail -20 "$SCRATCH/build.log"; exit 2; }

status=0
results=()
for i in "${!NAMES[@]}"; do
  name=${NAMES[$i]}
  selected "$name" || continue
  tests=${TESTS[$i]}
  site=$(locate "$SRC" "${FILES[$i]}" "${LINES[$i]}") || { results+=("$name|-|NOT APPLIED (line not found)"); status=2; continue; }
  file=${site%%:*}
  line=${site##*:}
  # The unmutated code must pass the mutation's tests.
  if ! run_tests "$tests" "$SCRATCH/$name.baseline.log"; then
    echo "mutate: $name: the tests fail WITHOUT the mutation (see $SCRATCH/$name.baseline.log):"
    grep -E '^(not ok|✖|.*FAILED)' "$SCRATCH/$name.baseline.log" | head -10 | sed 's/^/    /'
    results+=("$name|$site|BASELINE FAILS")
    status=2
    continue
  fi
  sed -E -i "${line}${SEDS[$i]}" "$SRC/$file"
  if git -C "$SRC" diff --quiet -- "$file"; then
    results+=("$name|$site|NOT APPLIED (the substitution changed nothing)")
    status=2
    continue
  fi
  echo "mutate: $name: $site: $(sed -n "${line}p" "$SRC/$file" | sed 's/^ *//')"
  if ! build; then
    results+=("$name|$site|BUILD FAILED (see $SCRATCH/build.log)")
    status=2
  elif run_tests "$tests" "$SCRATCH/$name.log"; then
    results+=("$name|$site|SURVIVED: the tests still pass")
    [ $status -eq 0 ] && status=1
  else
    failed=$(grep -cE '^(not ok|✖ )|\*\*\*Failed|FAILED  ' "$SCRATCH/$name.log")
    results+=("$name|$site|KILLED ($failed failure lines; log $name.log)")
  fi
  git -C "$SRC" checkout -q -- "$file"
done
# Back to the unmutated build, so a kept clone is left as it was made.
[ $KEEP -eq 1 ] && build

echo
printf '%-12s %-36s %s\n' mutation site result
for r in "${results[@]}"; do
  IFS='|' read -r n s res <<<"$r"
  printf '%-12s %-36s %s\n' "$n" "$s" "$res"
done
case $status in
  0) echo "mutate: every mutation was caught" ;;
  1) echo "mutate: a mutation survived: its rule is not guarded by a test that fails without it" ;;
  *) echo "mutate: the check could not be made for every mutation" ;;
esac
exit $status
