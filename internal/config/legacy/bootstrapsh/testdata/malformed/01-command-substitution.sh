#!/bin/bash
# want: error line 3: command substitution $(…) '$(cat /tmp/ca.b64)' is not supported
/etc/eks/bootstrap.sh my-cluster --b64-cluster-ca $(cat /tmp/ca.b64) --apiserver-endpoint https://x.eks.amazonaws.com
