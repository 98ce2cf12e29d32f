#!/bin/bash
# want: warning line 3: bootstrap.sh is called in a pipeline on line {3}
/etc/eks/bootstrap.sh my-cluster 2>&1 | tee -a /var/log/bootstrap.log
