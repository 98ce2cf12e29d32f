#!/usr/bin/env bash
# AL2-compatible entry point: scripts written for Amazon Linux 2 keep calling
# /etc/eks/bootstrap.sh, and nodeboot reads the same flags.
#
# On a node booted with nodeboot's units, nodeboot-config.service has already
# read this very call out of the user data (before cloud-init runs it), and
# nodeboot-run.service starts containerd and the kubelet once cloud-init is
# done. Configuring again here from the arguments alone would drop settings
# that other user-data parts contributed, so the call only reports that.
# Anywhere else (no config cache), the arguments configure and start the node.
CACHE=/run/eks/nodeadm/config.json
if [ -e "$CACHE" ] && [ -z "${NODEBOOT_BOOTSTRAP_FORCE:-}" ]; then
  echo "bootstrap.sh: already configured from user data by nodeboot-config.service; nodeboot-run.service starts the kubelet (set NODEBOOT_BOOTSTRAP_FORCE=1 to configure from these arguments instead)" >&2
  exit 0
fi
exec /usr/bin/nodeboot bootstrap-sh -- "$@"
