#!/usr/bin/env bash
# Installs the Debian packages the real e2e suite needs (container runtime,
# CNI plugins, networking tools, busybox for the test image, xfsprogs for the
# local-disk test). Idempotent and
# fast when everything is present: apt is only touched for missing packages.
# Needs root. etcd is not installed: build-k8s.sh builds the etcd that the
# Kubernetes version pins.
set -euo pipefail
# mount and util-linux (mount, umount, unshare) are for the fault suite (make faults);
# dbus-daemon is the system bus the nodeadm oracle (make oracle) and bench-nodeadm run
# both agents against, and systemd provides the systemctl nodeadm runs (daemon-reload);
# awscli is the real AWS CLI (v2) whose `aws eks get-token` the kubelet's kubeconfig runs;
# cloud-init is the real reader of the MIME user data `userdata generate`, `merge` and `convert`
# write (the oracle's TestCloudInit*: only its Python modules are used, nothing is enabled);
# jq is what eksctl's AL2 script merges kubelet config with (the oracle's TestGenerateAsEksctl runs it).
PKGS=(containerd runc containernetworking-plugins iptables conntrack socat ebtables ethtool busybox-static iproute2 xfsprogs mount util-linux dbus-daemon systemd awscli cloud-init jq)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "e2e deps: all present"
  exit 0
fi
[ "$(id -u)" = 0 ] || { echo "e2e deps: missing ${missing[*]}; run as root" >&2; exit 1; }
echo "e2e deps: installing ${missing[*]}"
# A cloud-init installed only for its Python modules must never run at this machine's boot (it would
# configure the machine from whatever datasource it finds): its documented kill switch.
if [[ " ${missing[*]} " == *" cloud-init "* ]]; then
  mkdir -p /etc/cloud && touch /etc/cloud/cloud-init.disabled
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "e2e deps: installed ${missing[*]}"
