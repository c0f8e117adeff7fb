#!/usr/bin/env bash
# Builds the native program and tests (build/native) and the WASM module
# (build/wasm). Incremental: SQLite compiles once per build directory.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_TYPE=${PULSE_BUILD_TYPE:-Release}
JOBS=${PULSE_JOBS:-$(nproc)}

# ccache, where the machine has it: worktrees of this repository share one
# cache (paths are taken relative to the tree), so a second checkout builds
# in seconds. Without ccache nothing changes.
NATIVE_LAUNCHER=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1
  NATIVE_LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export EM_COMPILER_WRAPPER=ccache
fi

# The native build with clang where it is installed (scripts/setup.sh
# installs it for the fuzz build): with its precompiled headers, whose
# templates are instantiated once per target (CMakeLists.txt), a fresh build
# takes about 6 minutes on two cores against 10 with GCC. A build folder
# already configured keeps its compiler (remove build/native to switch).
NATIVE_CC=()
if command -v clang >/dev/null 2>&1 && command -v clang++ >/dev/null 2>&1; then
  NATIVE_CC=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
fi
if [ ! -f build/native/build.ninja ]; then
  cmake -S . -B build/native -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" "${NATIVE_CC[@]}" "${NATIVE_LAUNCHER[@]}" >/dev/null
fi
ninja -C build/native -j "$JOBS" | grep -vE '^\[[0-9]+/[0-9]+\] ' || true
test -x build/native/pulse

# The Pulse tab's browser libraries, copied from node_modules into web/vendor/.
node scripts/vendor-web.mjs

# Emscripten: em++ finds its node modules through NODE_PATH, and the emulator
# is plain node (emcmake's default adds a flag Node 20 rejects).
export NODE_PATH=/usr/share/nodejs
if [ ! -f build/wasm/build.ninja ]; then
  emcmake cmake -S . -B build/wasm -G Ninja -DCMAKE_BUILD_TYPE="$BUILD_TYPE" \
    -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
fi
ninja -C build/wasm -j "$JOBS" | grep -vE '^\[[0-9]+/[0-9]+\] ' || true
test -f build/wasm/pulse.wasm
