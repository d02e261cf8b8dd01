#!/usr/bin/env bash
# Builds FerretDB (a MongoDB-wire-protocol server) into .tmp/bin/ferretdb for the MongoDB suites.
# `go install` of the module is refused by the proxy's deprecation lookup, so the module is
# downloaded and built from a copy with its version file written.
set -euo pipefail
VERSION="${FERRETDB_VERSION:-v1.24.0}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/.tmp/bin/ferretdb"
if [ -x "$OUT" ] && "$OUT" --version >/dev/null 2>&1; then
  echo "ferretdb: $("$OUT" --version 2>&1 | grep -m1 -i version || true) already at $OUT"
  exit 0
fi
command -v go >/dev/null || { echo "ferretdb: Go is required to build FerretDB" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
DIR="$(go mod download -json "github.com/FerretDB/FerretDB@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[ -n "$DIR" ] || { echo "ferretdb: download of $VERSION failed" >&2; exit 1; }
cp -r "$DIR" src && chmod -R u+w src
echo "$VERSION" > src/build/version/version.txt
cd src
GOFLAGS=-mod=mod go build -o "$OUT" ./cmd/ferretdb
echo "ferretdb: built $VERSION at $OUT"
