#!/bin/bash
# want: error line 5: it may come from "/etc/eksctl/kubelet.env", sourced on line {4}, which nodeboot does not read
set -o allexport
source /etc/eksctl/kubelet.env
/etc/eks/bootstrap.sh "${CLUSTER_NAME}" --apiserver-endpoint "${API_SERVER_URL}" --b64-cluster-ca "${B64_CLUSTER_CA}"
