#!/bin/bash
# want: error line 3: --cpu-cfs-quota is a boolean flag: write --cpu-cfs-quota=false
/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--cpu-cfs-quota false'
