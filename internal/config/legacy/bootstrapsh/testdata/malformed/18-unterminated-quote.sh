#!/bin/bash
# want: error line 4: is not valid shell, so the call cannot be read: reached EOF without closing quote
/etc/eks/bootstrap.sh my-cluster \
  --kubelet-extra-args '--node-labels=team=a
echo done
