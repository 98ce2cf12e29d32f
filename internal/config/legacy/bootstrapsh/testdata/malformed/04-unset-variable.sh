#!/bin/bash
# want: error line 3: $ENDPOINT is not set by this script before it is used; nodeboot does not read the environment
/etc/eks/bootstrap.sh my-cluster --apiserver-endpoint "$ENDPOINT"
