#!/bin/bash
# want: error line 4: --b64-cluster-ca is not valid base64
/etc/eks/bootstrap.sh my-cluster --apiserver-endpoint https://x.eks.amazonaws.com \
  --b64-cluster-ca 'not*base64!'
