#!/usr/bin/env bash
# Builds the real Kubernetes components (kube-apiserver, kube-controller-manager,
# kube-scheduler, kubelet, kubectl) and etcd from the pinned tools module in test/tools/k8s.
# Binaries land in $OUT (default: .cache/e2e/bin in the repo, git-ignored) and
# are reused when the stamp (module pins + Go version + this script) matches.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
MOD="$REPO/test/tools/k8s"
OUT=${OUT:-$REPO/.cache/e2e/bin}
mkdir -p "$OUT"
# One build at a time: .cache is shared by every worktree on a machine; a second run
# waits here, then finds the stamp current instead of building the same thing again.
exec 9>"$OUT/.lock-k8s"
flock 9
KV=$(awk '$1=="k8s.io/kubernetes"{print $2; exit}' "$MOD/go.mod")
MINOR=$(echo "$KV" | cut -d. -f2)
STAMP=$( { cat "$MOD/go.mod" "$MOD/go.sum" "$0"; go version; } | sha256sum | cut -c1-16)
if [ -f "$OUT/.stamp" ] && [ "$(cat "$OUT/.stamp")" = "$STAMP" ]; then
  for b in kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl etcd; do [ -x "$OUT/$b" ] || { rm -f "$OUT/.stamp"; break; }; done
  [ -f "$OUT/.stamp" ] && { echo "k8s binaries up to date ($KV) in $OUT"; exit 0; }
fi
LD="-s -w -X k8s.io/component-base/version.gitVersion=$KV -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$MINOR -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/client-go/pkg/version.gitVersion=$KV -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$MINOR"
cd "$MOD"
export CGO_ENABLED=0
echo "building Kubernetes $KV into $OUT (cold: ~9 min on 2 cores)"
go build -trimpath -ldflags "$LD" -o "$OUT/" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kubectl
go build -trimpath -ldflags "-s -w" -o "$OUT/etcd" go.etcd.io/etcd/server/v3
echo "$STAMP" > "$OUT/.stamp"
"$OUT/kubelet" --version
