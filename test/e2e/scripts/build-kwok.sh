#!/usr/bin/env bash
# Builds kwok from the pinned tools module in test/tools/kwok. kwok plays the
# kubelet of the rollout suite's simulated nodes (Node status, leases, pod
# lifecycle) against the real API server. Never `go install ...@version`: the
# wrapper module pins it. The binary lands in $OUT (default: .cache/e2e/bin in
# the repo, git-ignored) and is reused when the stamp (module pins + Go
# version + this script) matches.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
MOD="$REPO/test/tools/kwok"
OUT=${OUT:-$REPO/.cache/e2e/bin}
BIN="$OUT/kwok"
STAMPFILE="$OUT/.stamp-kwok"
mkdir -p "$OUT"
# One build at a time: .cache is shared by every worktree on a machine; a second run
# waits here, then finds the stamp current instead of building the same thing again.
exec 9>"$OUT/.lock-kwok"
flock 9
V=$(awk '$1=="require" && $2=="sigs.k8s.io/kwok"{print $3; exit}' "$MOD/go.mod")
STAMP=$( { cat "$MOD/go.mod" "$MOD/go.sum" "$0"; go version; } | sha256sum | cut -c1-16)
if [ -x "$BIN" ] && [ -f "$STAMPFILE" ] && [ "$(cat "$STAMPFILE")" = "$STAMP" ]; then
  echo "kwok up to date ($V) in $OUT"
  exit 0
fi
rm -f "$STAMPFILE"
cd "$MOD"
export CGO_ENABLED=0
echo "building kwok $V into $OUT (cold: ~5 min on 2 cores)"
go build -trimpath -ldflags "-s -w" -o "$BIN" sigs.k8s.io/kwok/cmd/kwok
echo "$STAMP" > "$STAMPFILE"
"$BIN" --version
