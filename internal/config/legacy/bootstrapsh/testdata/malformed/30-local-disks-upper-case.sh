#!/bin/bash
# want: error line 3: --local-disks RAID0: must be raid0, raid10, mount or none; did you mean raid0?
/etc/eks/bootstrap.sh my-cluster --local-disks RAID0
