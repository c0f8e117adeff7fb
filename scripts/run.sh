#!/usr/bin/env bash
# The main job: installs what is missing, builds both targets, shows the
# native program's version and serves the page that opens a database copy
# from OPFS (web/opfs-demo.html) on http://127.0.0.1:8080 (PULSE_PORT to
# change). Later issues switch this to `pulse serve` on a demo workspace.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
bash scripts/setup.sh
build/native/pulse --version
PORT=${PULSE_PORT:-8080}
echo "open http://127.0.0.1:${PORT}/opfs-demo.html (Ctrl-C to stop)"
exec node scripts/serve-static.mjs --host 127.0.0.1 --port "$PORT"
