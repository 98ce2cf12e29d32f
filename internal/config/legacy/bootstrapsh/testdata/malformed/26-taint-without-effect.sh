#!/bin/bash
# want: error line 3: taint dedicated=gpu in --register-with-taints has no effect
/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints=dedicated=gpu'
