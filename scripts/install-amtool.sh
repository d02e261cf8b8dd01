#!/usr/bin/env bash
# Installs Alertmanager's amtool (tests/silences-amtool.test.ts drives the real binary against
# Tocsin's Alertmanager-compatible silence API) into .tmp/bin/amtool with a pinned `go install`.
set -euo pipefail
VERSION="${AMTOOL_VERSION:-v0.28.1}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/.tmp/bin/amtool"
# `go install` builds report no release version, so a stamp file records which one it is.
if [ -x "$OUT" ] && [ "$(cat "$OUT.version" 2>/dev/null)" = "$VERSION" ]; then
  echo "amtool: $VERSION already at $OUT"
  exit 0
fi
command -v go >/dev/null || { echo "amtool: Go is required to install amtool" >&2; exit 1; }
mkdir -p "$ROOT/.tmp/bin"
GOBIN="$ROOT/.tmp/bin" go install "github.com/prometheus/alertmanager/cmd/amtool@$VERSION"
echo "$VERSION" >"$OUT.version"
echo "amtool: installed $VERSION at $OUT"
