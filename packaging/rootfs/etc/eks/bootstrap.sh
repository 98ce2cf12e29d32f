#!/usr/bin/env bash
# AL2-compatible entry point: scripts written for Amazon Linux 2 keep calling
# /etc/eks/bootstrap.sh; nodeboot reads the same flags and configures the node.
exec /usr/bin/nodeboot bootstrap-sh "$@"
