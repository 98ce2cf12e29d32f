#!/bin/bash
# want: warning line 5: this bootstrap.sh call never runs: the script exits on line {4} before it
/etc/eks/bootstrap.sh my-cluster
exit 0
/etc/eks/bootstrap.sh other-cluster
