#!/usr/bin/env bash
# Measures nodeboot and nodeadm side by side (docs/performance.md): both run
# `init --skip run` on the same user data against the same loopback
# amazon-ec2-metadata-mock and EC2 Query stub, interleaved, RUNS times each;
# CPU (user+sys) and peak RSS come from wait4's rusage, package init from
# GODEBUG=inittrace=1, traced under `chrt -f $RT` (RT=0: normal scheduling)
# so that other work on a shared machine does not preempt the traced process
# and inflate its wall-clock init times. Needs root: nodeadm has no --root, so it runs in a
# private mount namespace with throw-away overlays over /etc, /var/lib and
# /run, and connects to a real dbus-daemon started for the run.
#
# nodeadm is built from its Go module at the version pinned in
# test/tools/nodeadm/go.mod by test/e2e/scripts/build-nodeadm.sh into the
# git-ignored .cache/nodeadm (shared with make oracle; never committed),
# with the same flags as `make build` builds nodeboot.
#
# nodeboot is built as `make build` builds it (-tags celexec: max pods
# expressions go to the nodeboot-cel helper, built next to it; the user data
# has none, so the helper does not run). With CEL_LINKED=1 (the default) it
# also measures nodeboot built without the tag, which links cel-go and
# evaluates expressions in process: what linking cel-go costs.
#
# EXTRA_VARIANTS=name=path[,name=path] measures more nodeboot binaries
# alongside, e.g. one built from main for a before/after comparison.
#
#   bash hack/bench-vs-nodeadm.sh            # RUNS=31 INIT_RUNS=31 CEL_LINKED=1 RT=50
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=$REPO/.cache/bench
MOD=$REPO/test/tools/nodeadm
RUNS=${RUNS:-31}
INIT_RUNS=${INIT_RUNS:-31}
CEL_LINKED=${CEL_LINKED:-1}
RT=${RT:-50}
mkdir -p "$OUT"
export CGO_ENABLED=0

[ "$(id -u)" = 0 ] || { echo "needs root (nodeadm requires it; the overlays need mount)" >&2; exit 1; }
command -v dbus-daemon >/dev/null || { echo "needs dbus-daemon: apt-get install -y dbus-daemon" >&2; exit 1; }
command -v unshare >/dev/null || { echo "needs unshare (util-linux)" >&2; exit 1; }

OUT_NODEADM=$REPO/.cache/nodeadm
bash "$REPO/test/e2e/scripts/build-nodeadm.sh"
NODEADM_VERSION=$(cat "$OUT_NODEADM/version")

VERSION=$(git -C "$REPO" describe --tags --always --dirty 2>/dev/null || echo dev)
(cd "$REPO" && go build -trimpath -tags celexec -ldflags "-s -w -X github.com/nodeboot/nodeboot/internal/version.Version=$VERSION" \
  -o "$OUT/" ./cmd/nodeboot ./cmd/nodeboot-cel)
VARIANTS=""
if [ "$CEL_LINKED" = 1 ]; then
  mkdir -p "$OUT/cel-linked"
  (cd "$REPO" && go build -trimpath -ldflags "-s -w -X github.com/nodeboot/nodeboot/internal/version.Version=$VERSION" \
    -o "$OUT/cel-linked/nodeboot" ./cmd/nodeboot)
  VARIANTS="cel-go-linked=$OUT/cel-linked/nodeboot"
fi
VARIANTS="$VARIANTS${EXTRA_VARIANTS:+${VARIANTS:+,}$EXTRA_VARIANTS}"
bash "$REPO/test/e2e/scripts/build-aemm.sh"
(cd "$REPO" && go test -c -tags nodeadmbench -o "$OUT/benchvsnodeadm.test" ./hack/benchvsnodeadm)

cd "$REPO/hack/benchvsnodeadm"
unshare --mount --propagation private "$OUT/benchvsnodeadm.test" -test.run '^TestSideBySide$' -test.v -test.timeout 60m \
  -nodeboot "$OUT/nodeboot" -nodeadm "$OUT_NODEADM/nodeadm" -nodeadm-version "$NODEADM_VERSION" \
  -runs "$RUNS" -init-runs "$INIT_RUNS" -variants "$VARIANTS" -rt "$RT" -out "$OUT/vs-nodeadm.md"
echo "report: $OUT/vs-nodeadm.md"
