#!/bin/bash
# want: error line 3: --container-runtime dockerd is not supported: Kubernetes removed dockershim in 1.24
/etc/eks/bootstrap.sh my-cluster --container-runtime dockerd --enable-docker-bridge true
