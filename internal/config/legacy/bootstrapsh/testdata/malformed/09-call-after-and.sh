#!/bin/bash
# want: error line 3: bootstrap.sh is called after && on line {3}
yum install -y jq && /etc/eks/bootstrap.sh my-cluster
