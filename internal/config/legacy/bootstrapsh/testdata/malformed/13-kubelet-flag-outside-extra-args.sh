#!/bin/bash
# want: error line 3: --max-pods is not a bootstrap.sh option but a kubelet flag: pass it inside --kubelet-extra-args '--max-pods=…'
/etc/eks/bootstrap.sh my-cluster --max-pods 20
