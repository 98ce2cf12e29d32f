#!/usr/bin/env bash
# Builds amazon-ec2-metadata-mock (AEMM) from the pinned tools module in
# test/tools/aemm. Never `go install ...@version` or @latest: the module proxy
# here refuses the version list, so a wrapper module with `go build` is the
# only way that works. The binary lands in $OUT (default: .cache/e2e/bin in
# the repo, git-ignored) and is reused when the stamp (module pins + Go
# version + this script) matches.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
MOD="$REPO/test/tools/aemm"
OUT=${OUT:-$REPO/.cache/e2e/bin}
BIN="$OUT/ec2-metadata-mock"
STAMPFILE="$OUT/.stamp-aemm"
mkdir -p "$OUT"
# One build at a time: .cache is shared by every worktree on a machine; a second run
# waits here, then finds the stamp current instead of building the same thing again.
exec 9>"$OUT/.lock-aemm"
flock 9
V=$(awk '$1=="require" && $2=="github.com/aws/amazon-ec2-metadata-mock"{print $3; exit}' "$MOD/go.mod")
STAMP=$( { cat "$MOD/go.mod" "$MOD/go.sum" "$0"; go version; } | sha256sum | cut -c1-16)
if [ -x "$BIN" ] && [ -f "$STAMPFILE" ] && [ "$(cat "$STAMPFILE")" = "$STAMP" ]; then
  echo "ec2-metadata-mock up to date ($V) in $OUT"
  exit 0
fi
rm -f "$STAMPFILE"
cd "$MOD"
export CGO_ENABLED=0
echo "building amazon-ec2-metadata-mock $V into $OUT (cold: ~10 s on 2 cores)"
go build -trimpath -ldflags "-s -w" -o "$BIN" github.com/aws/amazon-ec2-metadata-mock/cmd
echo "$STAMP" > "$STAMPFILE"
echo "built ec2-metadata-mock $("$BIN" --version 2>/dev/null || true)"
