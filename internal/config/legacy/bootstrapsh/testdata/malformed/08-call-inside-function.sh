#!/bin/bash
# want: error line 4: bootstrap.sh is called inside function join_cluster (defined on line {3})
join_cluster() {
  /etc/eks/bootstrap.sh "$1"
}
join_cluster my-cluster
