#!/bin/bash
# want: error line 4: length expansion ${#…} '${#NAME}' is not supported
NAME=my-cluster
/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args "--node-labels=len=${#NAME}"
