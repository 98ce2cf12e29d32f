#!/usr/bin/env bash
# Runs nodeboot end to end against AWS's amazon-ec2-metadata-mock serving
# examples/nodeconfig-mime.txt as user data, writing into .cache/demo/root.
set -euo pipefail
cd "$(dirname "$0")/.."
D=.cache/demo; rm -rf "$D"; mkdir -p "$D/root/etc/eks" "$D/root/sys/devices/system/cpu" "$D/root/proc"
AEMM=${NODEBOOT_AEMM:-.cache/e2e/bin/ec2-metadata-mock}
go run ./hack/aemm-config -user-data examples/nodeconfig-mime.txt > "$D/aemm.json"
PORT=$(go run ./hack/aemm-config -free-port)
"$AEMM" -n 127.0.0.1 -p "$PORT" -I -c "$D/aemm.json" > "$D/aemm.log" 2>&1 &
AEMM_PID=$!; trap 'kill $AEMM_PID 2>/dev/null || true' EXIT
until (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; do sleep 0.1; done
# A fake machine: what the AMI and the kernel would provide.
echo v1.34.4 > "$D/root/etc/eks/kubelet-version.txt"; echo 1.7.27 > "$D/root/etc/eks/containerd-version.txt"
echo 0-1 > "$D/root/sys/devices/system/cpu/online"; echo "MemTotal: 8010000 kB" > "$D/root/proc/meminfo"
export AWS_EC2_METADATA_SERVICE_ENDPOINT="http://127.0.0.1:$PORT"
echo "== nodeboot config check -c imds://user-data"
bin/nodeboot config check -c imds://user-data
echo; echo "== nodeboot config check -c file://$PWD/examples/broken.yaml (expected to fail)"
bin/nodeboot config check -c "file://$PWD/examples/broken.yaml" || echo "(exit $?)"
echo; echo "== nodeboot init --skip run --root $D/root"
start=$(date +%s%N)
bin/nodeboot init --skip run --root "$D/root" -c imds://user-data
echo "whole process: $(( ($(date +%s%N) - start) / 1000000 )) ms"
echo; echo "== files written"
(cd "$D/root" && find etc var -type f | grep -v version.txt | sort)
echo; echo "== /etc/eks/kubelet/environment"; cat "$D/root/etc/eks/kubelet/environment"
