#!/bin/bash
# want: error line 8: $LABELS has no value nodeboot can know: it is assigned on line {6} inside the if statement on line {3}
if grep -q gpu /proc/cpuinfo; then
  LABELS=accelerator=nvidia
else
  LABELS=accelerator=none
fi
/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args "--node-labels=$LABELS"
