#!/bin/bash
# want: error line 4: $NAME is not set by this script before it is used
echo my-cluster | read NAME
/etc/eks/bootstrap.sh "$NAME"
