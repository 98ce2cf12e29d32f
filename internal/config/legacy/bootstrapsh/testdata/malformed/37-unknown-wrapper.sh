#!/bin/bash
# want: warning line 3: this line passes /etc/eks/bootstrap.sh to `timeout`, which nodeboot does not understand
timeout 600 /etc/eks/bootstrap.sh my-cluster
