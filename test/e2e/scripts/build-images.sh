#!/usr/bin/env bash
# Builds the two container images the e2e suite needs without any registry,
# as docker-archive tars importable with `ctr -n k8s.io images import`:
#   pause.tar   registry.k8s.io/pause:3.10         (tiny static Go binary)
#   busybox.tar docker.io/library/busybox:local    (Debian busybox-static)
# Output: $IMG (default .cache/e2e/images in the repo). Skips images already built.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
IMG=${IMG:-$REPO/.cache/e2e/images}
mkdir -p "$IMG"
if [ -s "$IMG/pause.tar" ] && [ -s "$IMG/busybox.tar" ]; then
  echo "e2e images up to date in $IMG"; exit 0
fi
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
ARCH=$(go env GOARCH)

# mkimage ROOTFS REF OUT ENTRYPOINT... writes a single-layer docker-archive.
mkimage() {
  local root=$1 ref=$2 out=$3; shift 3
  local ep; ep=$(printf '"%s",' "$@"); ep="[${ep%,}]"
  local w="$W/img-$(basename "$out" .tar)"; mkdir -p "$w"
  tar -C "$root" --owner=0 --group=0 --numeric-owner --sort=name --mtime=@0 -cf "$w/layer.tar" .
  local diff; diff=$(sha256sum "$w/layer.tar" | cut -d' ' -f1)
  printf '{"architecture":"%s","os":"linux","config":{"Entrypoint":%s,"Env":["PATH=/bin"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
    "$ARCH" "$ep" "$diff" > "$w/config.json"
  printf '[{"Config":"config.json","RepoTags":["%s"],"Layers":["layer.tar"]}]' "$ref" > "$w/manifest.json"
  tar -C "$w" -cf "$out.tmp" manifest.json config.json layer.tar
  mv "$out.tmp" "$out"
}

if [ ! -s "$IMG/pause.tar" ]; then
  mkdir -p "$W/pause/rootfs"
  cat > "$W/pause/main.go" <<'GO'
// Command pause blocks until SIGINT or SIGTERM, like the Kubernetes pause image.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM)
	<-c
}
GO
  printf 'module pause\n\ngo 1.22\n' > "$W/pause/go.mod"
  (cd "$W/pause" && CGO_ENABLED=0 GOFLAGS= go build -trimpath -ldflags '-s -w' -o rootfs/pause .)
  mkimage "$W/pause/rootfs" registry.k8s.io/pause:3.10 "$IMG/pause.tar" /pause
fi

if [ ! -s "$IMG/busybox.tar" ]; then
  [ -x /bin/busybox ] || { echo "need /bin/busybox (apt-get install busybox-static; see install-deps.sh)" >&2; exit 1; }
  mkdir -p "$W/bb/rootfs/bin"
  cp /bin/busybox "$W/bb/rootfs/bin/"
  for a in sh ls cat echo sleep wget hostname ip ps env id; do ln -s busybox "$W/bb/rootfs/bin/$a"; done
  mkimage "$W/bb/rootfs" docker.io/library/busybox:local "$IMG/busybox.tar" /bin/sh
fi
ls -la "$IMG"
