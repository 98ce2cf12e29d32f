#!/usr/bin/env bash
# Runs staticcheck (make lint), built from the pinned tools module in
# test/tools/staticcheck into .cache/tools and reused while the pins, the Go
# version and this script are unchanged. Arguments are passed to staticcheck
# (default: ./...). It loads packages as make build does (CGO_ENABLED=0,
# -trimpath), so a cold machine compiles the dependencies' export data once
# for the build, go vet and staticcheck.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
MOD="$REPO/test/tools/staticcheck"
OUT="$REPO/.cache/tools"
BIN="$OUT/staticcheck"
STAMPFILE="$OUT/.stamp-staticcheck"
mkdir -p "$OUT"
export CGO_ENABLED=0
STAMP=$( { cat "$MOD/go.mod" "$MOD/go.sum" "$0"; go version; } | sha256sum | cut -c1-16)
if ! [ -x "$BIN" ] || ! [ -f "$STAMPFILE" ] || [ "$(cat "$STAMPFILE")" != "$STAMP" ]; then
  echo "building staticcheck $(awk '$1=="require" && $2=="honnef.co/go/tools"{print $3}' "$MOD/go.mod") into $OUT"
  (cd "$MOD" && go build -trimpath -ldflags "-s -w" -o "$BIN" honnef.co/go/tools/cmd/staticcheck)
  echo "$STAMP" > "$STAMPFILE"
fi
cd "$REPO"
GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath" "$BIN" "${@:-./...}"
