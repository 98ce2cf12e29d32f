#!/bin/bash
# want: error line 4: command substitution `…` '`cat /tmp/endpoint`' is not supported
/etc/eks/bootstrap.sh my-cluster \
  --apiserver-endpoint `cat /tmp/endpoint`
