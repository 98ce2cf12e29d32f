#!/bin/bash
# want: error line 4: a bootstrap.sh call inside a string run by `eval` is not supported
ARGS="my-cluster --use-max-pods false"
eval "/etc/eks/bootstrap.sh $ARGS"
