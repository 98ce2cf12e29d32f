#!/bin/bash
# want: error line 4: unterminated single quote
/etc/eks/bootstrap.sh my-cluster \
  --kubelet-extra-args '--node-labels=team=a
echo done
