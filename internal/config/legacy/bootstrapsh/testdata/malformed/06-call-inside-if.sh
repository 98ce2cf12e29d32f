#!/bin/bash
# want: error line 5: bootstrap.sh is called inside the if statement on line {4}
set -x
if [ -x /etc/eks/bootstrap.sh ]; then
  /etc/eks/bootstrap.sh my-cluster
fi
