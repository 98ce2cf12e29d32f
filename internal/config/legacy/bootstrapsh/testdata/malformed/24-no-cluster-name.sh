#!/bin/bash
# want: error line 3: cluster name is not defined
/etc/eks/bootstrap.sh --apiserver-endpoint https://x.eks.amazonaws.com --use-max-pods false
