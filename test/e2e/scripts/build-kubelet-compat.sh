#!/usr/bin/env bash
# Builds the old kubelets test/kubeletcompat runs (only cmd/kubelet) from the
# pinned wrapper modules test/tools/kubelet128 and test/tools/kubelet131,
# into $OUT (default: .cache/kubelet-compat in the repo, git-ignored). Each
# is rebuilt only when its module pins, the Go version or this script change.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
OUT=${OUT:-$REPO/.cache/kubelet-compat}
mkdir -p "$OUT"
# One build at a time: .cache is shared by every worktree on a machine; a second run
# waits here, then finds the stamp current instead of building the same thing again.
exec 9>"$OUT/.lock-kubelet-compat"
flock 9
export CGO_ENABLED=0
for MOD in "$REPO/test/tools/kubelet128" "$REPO/test/tools/kubelet131"; do
  KV=$(awk '$1=="require" && $2=="k8s.io/kubernetes"{print $3; exit}' "$MOD/go.mod")
  MINOR=$(echo "$KV" | cut -d. -f2)
  BIN="$OUT/kubelet-$KV"
  STAMP=$( { cat "$MOD/go.mod" "$MOD/go.sum" "$0"; go version; } | sha256sum | cut -c1-16)
  if [ -x "$BIN" ] && [ "$(cat "$BIN.stamp" 2>/dev/null)" = "$STAMP" ]; then
    echo "kubelet $KV up to date in $OUT"
    continue
  fi
  LD="-s -w -X k8s.io/component-base/version.gitVersion=$KV -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$MINOR -X k8s.io/component-base/version.gitTreeState=clean"
  echo "building kubelet $KV into $OUT (cold: more than 5 minutes on 2 cores, docs/performance.md)"
  (cd "$MOD" && go build -trimpath -ldflags "$LD" -o "$BIN" k8s.io/kubernetes/cmd/kubelet)
  echo "$STAMP" > "$BIN.stamp"
  "$BIN" --version
done
