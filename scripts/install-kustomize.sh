#!/usr/bin/env bash
# Installs kustomize (renders deploy/kubernetes; tests/kubernetes.test.ts checks what it renders)
# into .tmp/bin/kustomize with a pinned `go install`.
set -euo pipefail
VERSION="${KUSTOMIZE_VERSION:-v5.5.0}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/.tmp/bin/kustomize"
# `go install` builds report "(devel)" as their version, so a stamp file records which one it is.
if [ -x "$OUT" ] && [ "$(cat "$OUT.version" 2>/dev/null)" = "$VERSION" ]; then
  echo "kustomize: $VERSION already at $OUT"
  exit 0
fi
command -v go >/dev/null || { echo "kustomize: Go is required to install kustomize" >&2; exit 1; }
mkdir -p "$ROOT/.tmp/bin"
GOBIN="$ROOT/.tmp/bin" go install "sigs.k8s.io/kustomize/kustomize/v5@$VERSION"
echo "$VERSION" >"$OUT.version"
echo "kustomize: installed $VERSION at $OUT"
