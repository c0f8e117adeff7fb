#!/usr/bin/env bash
# Installs the real coding-agent programs the preset tests drive
# (tests/server/programs.test.mjs): Claude Code and Codex, exactly as pinned in
# tests/programs/package-lock.json, into .cache/programs/ (gitignored). Not
# part of the default `npm ci`: they are ~800 MB on disk. Idempotent: nothing
# happens when the lock file has not changed since the last install (a
# stamp beside them). Prints the folder holding their programs.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC="$ROOT/tests/programs"
DEST="$ROOT/.cache/programs"
LOCK_HASH=$(cat "$SRC/package.json" "$SRC/package-lock.json" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$DEST/.pulse-lock-hash" 2>/dev/null)" != "$LOCK_HASH" ] || [ ! -x "$DEST/node_modules/.bin/claude" ]; then
  echo "programs: installing Claude Code and Codex (npm ci into .cache/programs)" >&2
  mkdir -p "$DEST"
  rm -f "$DEST/.pulse-lock-hash"
  cp "$SRC/package.json" "$SRC/package-lock.json" "$DEST/"
  # Install scripts on: Claude Code's postinstall puts its native binary in
  # place of the placeholder. Its engines field asks for Node 22; the
  # native binary does not use Node, so the warning is not an error here.
  (cd "$DEST" && npm ci --no-audit --no-fund --loglevel=error --engine-strict=false >&2)
  echo "$LOCK_HASH" > "$DEST/.pulse-lock-hash"
fi
echo "$DEST/node_modules/.bin"
