#!/bin/bash
# want: error line 4: --b64-cluster-ca is followed by the option --apiserver-endpoint instead of a value
B64_CLUSTER_CA=
/etc/eks/bootstrap.sh my-cluster --b64-cluster-ca $B64_CLUSTER_CA --apiserver-endpoint https://x.eks.amazonaws.com
