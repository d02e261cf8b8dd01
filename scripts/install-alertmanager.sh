#!/usr/bin/env bash
# Installs Prometheus Alertmanager (the peer that bench/storm.mjs measures Tocsin against) into
# .tmp/bin/alertmanager with a pinned `go install`. Bench only: no test needs it.
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
