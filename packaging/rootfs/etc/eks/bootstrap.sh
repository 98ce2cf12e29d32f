#!/usr/bin/env bash
# AL2-compatible entry point: scripts written for Amazon Linux 2 keep calling
# /etc/eks/bootstrap.sh, and nodeboot reads the same flags.
#
# On a node booted with nodeboot's units, nodeboot-config.service has already
# read this very call out of the user data (before cloud-init runs it), and
# nodeboot-run.service starts containerd and the kubelet once cloud-init is
# done. Configuring again here from the arguments alone would drop settings
# that other user-data parts contributed, so the call only reports that.
# When nodeboot-config.service rejected the user data, it left the reason in
# $REJECTED: the node must not start from these arguments alone either, so
# the call fails and says why (cloud-init copies it to the console).
# Anywhere else (no config cache), the arguments configure and start the node.
CACHE=/run/eks/nodeadm/config.json
REJECTED=/run/nodeboot/config-rejected
if [ -e "$REJECTED" ]; then
  {
    echo "bootstrap.sh: nodeboot-config.service rejected this node's user data at boot:"
    cat "$REJECTED"
    echo "bootstrap.sh: not configuring or starting the node from these arguments alone (that would drop the rest of the user data)."
    echo "bootstrap.sh: fix the user data and reboot, or remove $REJECTED to configure from these arguments anyway."
  } >&2
  exit 1
fi
if [ -e "$CACHE" ] && [ -z "${NODEBOOT_BOOTSTRAP_FORCE:-}" ]; then
  echo "bootstrap.sh: already configured from user data by nodeboot-config.service; nodeboot-run.service starts the kubelet (set NODEBOOT_BOOTSTRAP_FORCE=1 to configure from these arguments instead)" >&2
  exit 0
fi
exec /usr/bin/nodeboot bootstrap-sh -- "$@"
