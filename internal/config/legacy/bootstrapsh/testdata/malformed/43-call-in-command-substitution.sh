#!/bin/bash
# want: error line 4: a bootstrap.sh call inside command substitution $(…) is not supported
set -e
OUTPUT=$(sudo /etc/eks/bootstrap.sh my-cluster 2>&1)
echo "$OUTPUT" >> /var/log/bootstrap.log
