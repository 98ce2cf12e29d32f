#!/usr/bin/env bash
# Builds eksctl-userdata (test/tools/eksctl): eksctl's own pkg/nodebootstrap,
# from the eksctl module version pinned there (never @latest), printing the
# user data eksctl writes for a node group. It is the oracle of
# test/oracle/eksctl_test.go (make oracle). The binary lands in $OUT
# (default: .cache/eksctl, git-ignored, shared by every worktree) and is
# reused while the stamp (module pins, driver source, Go version, this
# script) matches. A lock keeps concurrent runs from building twice.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
MOD="$REPO/test/tools/eksctl"
OUT=${OUT:-$REPO/.cache/eksctl}
STAMPFILE="$OUT/.stamp"
mkdir -p "$OUT"
exec 9>"$OUT/.lock"
flock 9
V=$(awk '$1=="github.com/weaveworks/eksctl"{print $2; exit}' "$MOD/go.mod")
STAMP=$( { cat "$MOD/go.mod" "$MOD/go.sum" "$MOD"/*.go "$0"; go version; } | sha256sum | cut -c1-16)
if [ -x "$OUT/eksctl-userdata" ] && [ "$(cat "$STAMPFILE" 2>/dev/null)" = "$STAMP" ]; then
  echo "eksctl-userdata up to date (eksctl $V) in $OUT"
  exit 0
fi
rm -f "$STAMPFILE"
cd "$MOD"
export CGO_ENABLED=0
echo "building eksctl-userdata (eksctl $V) into $OUT"
start=$(date +%s)
go build -trimpath -ldflags "-s -w" -o "$OUT/eksctl-userdata" .
echo "$V" > "$OUT/version"
echo "$STAMP" > "$STAMPFILE"
echo "built eksctl-userdata (eksctl $V) in $(( $(date +%s) - start )) s"
