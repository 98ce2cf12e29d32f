#!/usr/bin/env bash
# Builds EKS's authenticator, sigs.k8s.io/aws-iam-authenticator, from the
# pinned tools module in test/tools/authenticator. The e2e suite runs it
# unmodified as the API server's webhook token authenticator (EKSConfigMap and
# DynamicFile backends). Never `go install ...@version`: the wrapper module
# pins it. The binary lands in $OUT (default: .cache/e2e/bin in the repo,
# git-ignored) and is reused when the stamp (module pins + Go version + this
# script) matches.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
MOD="$REPO/test/tools/authenticator"
OUT=${OUT:-$REPO/.cache/e2e/bin}
BIN="$OUT/aws-iam-authenticator"
STAMPFILE="$OUT/.stamp-authenticator"
mkdir -p "$OUT"
# One build at a time: .cache is shared by every worktree on a machine; a second run
# waits here, then finds the stamp current instead of building the same thing again.
exec 9>"$OUT/.lock-authenticator"
flock 9
V=$(awk '$1=="require" && $2=="sigs.k8s.io/aws-iam-authenticator"{print $3; exit}' "$MOD/go.mod")
STAMP=$( { cat "$MOD/go.mod" "$MOD/go.sum" "$0"; go version; } | sha256sum | cut -c1-16)
if [ -x "$BIN" ] && [ -f "$STAMPFILE" ] && [ "$(cat "$STAMPFILE")" = "$STAMP" ]; then
  echo "aws-iam-authenticator up to date ($V) in $OUT"
  exit 0
fi
rm -f "$STAMPFILE"
cd "$MOD"
export CGO_ENABLED=0
echo "building aws-iam-authenticator $V into $OUT"
# The version variables are what the project's own release build stamps.
go build -trimpath -ldflags "-s -w -X sigs.k8s.io/aws-iam-authenticator/pkg.Version=$V" \
  -o "$BIN.tmp" sigs.k8s.io/aws-iam-authenticator/cmd/aws-iam-authenticator
mv "$BIN.tmp" "$BIN"
echo "$STAMP" > "$STAMPFILE"
"$BIN" version
