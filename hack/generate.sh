#!/usr/bin/env bash
# Regenerates the NodeGroupRollout deep-copy functions and CRD manifest with
# controller-gen, built from the pinned tools module in test/tools/controller-gen
# into .cache/tools (reused while the pins and the Go version are unchanged).
# The CRD is also checked against the Go types by a unit test
# (api/rollout/v1alpha1), so `make test` catches a forgotten regeneration.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
MOD="$REPO/test/tools/controller-gen"
OUT="$REPO/.cache/tools"
BIN="$OUT/controller-gen"
STAMPFILE="$OUT/.stamp-controller-gen"
mkdir -p "$OUT"
STAMP=$( { cat "$MOD/go.mod" "$MOD/go.sum" "$0"; go version; } | sha256sum | cut -c1-16)
if ! [ -x "$BIN" ] || ! [ -f "$STAMPFILE" ] || [ "$(cat "$STAMPFILE")" != "$STAMP" ]; then
  echo "building controller-gen into $OUT"
  (cd "$MOD" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$BIN" sigs.k8s.io/controller-tools/cmd/controller-gen)
  echo "$STAMP" > "$STAMPFILE"
fi
cd "$REPO"
"$BIN" object paths=./api/rollout/...
"$BIN" crd:crdVersions=v1 paths=./api/rollout/... output:crd:dir=deploy/rollout
echo "generated api/rollout/v1alpha1/zz_generated.deepcopy.go and deploy/rollout/nodeboot.io_nodegrouprollouts.yaml"
