#!/bin/bash
# want: error line 3: --kubelet-extra-args: unterminated quote
/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--node-labels="team=a'
