#!/bin/bash
# want: error line 4: bootstrap.sh is called inside the for loop on line {3}
for attempt in 1 2 3; do
  /etc/eks/bootstrap.sh my-cluster && break
  sleep 10
done
