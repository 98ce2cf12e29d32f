#!/bin/bash
# want: error line 5: $REGION has no value nodeboot can know: it is assigned on line {4} from command substitution
set -e
REGION=$(curl -s http://169.254.169.254/latest/meta-data/placement/region)
/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args "--node-labels=region=$REGION"
