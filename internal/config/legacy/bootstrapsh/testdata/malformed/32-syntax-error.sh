#!/bin/bash
# want: error line 5: is not valid shell, so the call cannot be read: syntax error: expected `fi', found end of script
if true; then
  /etc/eks/bootstrap.sh my-cluster
