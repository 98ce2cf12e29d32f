#!/bin/bash
# want: error line 3: node label node-role.kubernetes.io/worker is in the kubernetes.io/k8s.io namespace
/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--node-labels=node-role.kubernetes.io/worker=true,team=a'
