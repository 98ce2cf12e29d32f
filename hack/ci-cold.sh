#!/usr/bin/env bash
# Measures .ci/run cold, stage by stage: a clean clone of HEAD run through the same stages as .ci/run and
# `make test`, with HOME pointing at an empty directory (empty Go build, module and staticcheck caches, an empty
# .cache: every tool built from source), and the e2e lock (/tmp/nodeboot-e2e.lock) held only around the stages that
# use the host, so that the wait for it is not counted. Debian packages are not removed. docs/performance.md.
#   bash hack/ci-cold.sh [DIR]     # DIR (default /var/tmp/nodeboot-cold) is emptied first
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/var/tmp/nodeboot-cold}
rm -rf "$dir/home" "$dir/clone"
mkdir -p "$dir/home"
git clone -q "$repo" "$dir/clone"
cd "$dir/clone"
export HOME=$dir/home CI=true DEBIAN_FRONTEND=noninteractive GOFLAGS=-buildvcs=false
export PATH="$PATH:/usr/local/go/bin:$HOME/go/bin"
git log --oneline -1
bash hack/machine-speed.sh
mkdir -p "$HOME/.cache/nodeboot"
ln -s "$HOME/.cache/nodeboot" .cache
stage() { local t=$SECONDS; "$@"; echo "cold: '$*' took $((SECONDS - t)) s (load $(cut -d' ' -f1-3 /proc/loadavg))"; }
start=$SECONDS
stage go mod download
stage bash test/e2e/scripts/install-deps.sh
# As .ci/run: the tools build in the background at the lowest priority.
setsid nice -n 19 ionice -c 3 bash -c 'for s in $(grep -v "^#" test/e2e/scripts/background-tools); do
  t=$SECONDS; bash "test/e2e/scripts/build-$s.sh" || echo "background build-$s.sh failed"
  echo "cold: background build-$s took $((SECONDS - t)) s"
done' > .cache/prebuild.log 2>&1 &
prebuild=$!
trap 'kill -- -"$prebuild" 2>/dev/null || true' EXIT
stage make lint
stage make unit
stage make fuzz
waiting=$SECONDS
exec 9>/tmp/nodeboot-e2e.lock
flock 9
waited=$((SECONDS - waiting))
echo "cold: waited $waited s for the e2e lock"
stage make faults
stage make oracle
stage make e2e
stage make kubelet-compat
wait "$prebuild" || true
grep "cold:" .cache/prebuild.log || true
echo "cold: total $((SECONDS - start - waited)) s, the lock wait not counted"
