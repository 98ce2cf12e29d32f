#!/bin/bash
# want: error line 4: bootstrap.sh is called again (first call on line {3})
/etc/eks/bootstrap.sh my-cluster
/etc/eks/bootstrap.sh my-cluster --use-max-pods false
