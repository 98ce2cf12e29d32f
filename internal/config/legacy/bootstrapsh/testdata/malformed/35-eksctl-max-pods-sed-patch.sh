#!/bin/bash
# want: warning line 3: the max pods value 20 it adds is not applied: set kubelet.config.maxPods in a NodeConfig instead
sed -i -E "s/^KUBELET_EXTRA_ARGS=\"\$2\"/KUBELET_EXTRA_ARGS=\"\$2 --max-pods=20\"/" /etc/eks/bootstrap.sh
