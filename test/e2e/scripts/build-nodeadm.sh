#!/usr/bin/env bash
# Builds nodeadm and nodeadm-internal from their Go module at the version
# pinned in test/tools/nodeadm (never @latest), for the differential oracle
# (make oracle) and the side-by-side benchmark (hack/bench-vs-nodeadm.sh).
# The binaries land in $OUT (default: .cache/nodeadm, git-ignored, shared by
# every worktree) and are reused while the stamp (module pins, Go version,
# this script) matches. They are built the way `make build` builds nodeboot
# (no cgo, -trimpath), so the standard library and any dependency version
# the two modules share compile once. A lock keeps concurrent runs from
# building twice.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
MOD="$REPO/test/tools/nodeadm"
OUT=${OUT:-$REPO/.cache/nodeadm}
STAMPFILE="$OUT/.stamp"
mkdir -p "$OUT"
exec 9>"$OUT/.lock"
flock 9
V=$(awk '$1=="require" && $2=="github.com/awslabs/amazon-eks-ami/nodeadm"{print $3; exit}' "$MOD/go.mod")
STAMP=$( { cat "$MOD/go.mod" "$MOD/go.sum" "$0"; go version; } | sha256sum | cut -c1-16)
if [ -x "$OUT/nodeadm" ] && [ -x "$OUT/nodeadm-internal" ] && [ "$(cat "$STAMPFILE" 2>/dev/null)" = "$STAMP" ]; then
  echo "nodeadm up to date ($V) in $OUT"
  exit 0
fi
rm -f "$STAMPFILE"
cd "$MOD"
export CGO_ENABLED=0
echo "building nodeadm $V into $OUT"
start=$(date +%s)
go build -trimpath -ldflags "-s -w" -o "$OUT/" \
  github.com/awslabs/amazon-eks-ami/nodeadm/cmd/nodeadm \
  github.com/awslabs/amazon-eks-ami/nodeadm/cmd/nodeadm-internal
echo "$V" > "$OUT/version"
echo "$STAMP" > "$STAMPFILE"
echo "built nodeadm $V in $(( $(date +%s) - start )) s"
