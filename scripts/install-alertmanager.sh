#!/usr/bin/env bash
# Installs Prometheus Alertmanager into .tmp/bin/alertmanager with a pinned `go install`: the peer
# that bench/storm.mjs measures Tocsin against, and the real sender of
# tests/silences-alertmanager.test.ts (a silence holds one of its alerts).
set -euo pipefail
VERSION="${ALERTMANAGER_VERSION:-v0.28.1}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/.tmp/bin/alertmanager"
# `go install` builds report no release version, so a stamp file records which one it is.
if [ -x "$OUT" ] && [ "$(cat "$OUT.version" 2>/dev/null)" = "$VERSION" ]; then
  echo "alertmanager: $VERSION already at $OUT"
  exit 0
fi
command -v go >/dev/null || { echo "alertmanager: Go is required to install Alertmanager" >&2; exit 1; }
mkdir -p "$ROOT/.tmp/bin"
GOBIN="$ROOT/.tmp/bin" go install "github.com/prometheus/alertmanager/cmd/alertmanager@$VERSION"
echo "$VERSION" >"$OUT.version"
echo "alertmanager: installed $VERSION at $OUT"
