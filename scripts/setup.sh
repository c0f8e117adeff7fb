#!/usr/bin/env bash
# Installs what is missing (Debian packages, npm packages) and builds both
# targets. Safe to run again: it installs nothing that is already there and
# rebuilds only what changed.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

APT_PACKAGES=(build-essential cmake ninja-build pkg-config git ca-certificates
  emscripten nlohmann-json3-dev libhowardhinnant-date-dev libgtest-dev
  libcpp-httplib-dev libspdlog-dev libcli11-dev chromium
  clang libfuzzer-14-dev libclang-rt-14-dev  # the fuzz build (scripts/fuzz.sh): libFuzzer, ASan, UBSan
  etcd-server  # pulse serve --etcd: tests/server/etcd.test.mjs runs a real etcd on loopback
  curl python3  # tests: an outside SQLite reader (db_integrity), curl -H @FILE (serve_owner_token), the sandbox attacks and kernel probe (serve_sandbox)
  prometheus  # GET /metrics: tests/server/metrics_prometheus.test.mjs runs promtool and a real Prometheus on loopback
  prometheus-cpp-dev)  # the /metrics registry and its text format (server-shim/observe/metrics.cc)
command -v node >/dev/null 2>&1 || APT_PACKAGES+=(nodejs)
command -v npm >/dev/null 2>&1 || APT_PACKAGES+=(npm)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages, exactly as pinned in package-lock.json. --ignore-scripts:
# better-sqlite3 is here only for its SQLite amalgamation, not its addon.
LOCK_HASH=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.pulse-lock-hash 2>/dev/null)" != "$LOCK_HASH" ]; then
  echo "setup: installing npm packages (npm ci)"
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
  echo "$LOCK_HASH" > node_modules/.pulse-lock-hash
fi

bash "$ROOT/scripts/build.sh"
