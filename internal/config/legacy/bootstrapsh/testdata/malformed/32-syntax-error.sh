#!/bin/bash
# want: error line 3: is not valid shell, so the call cannot be read: `if` statement must end with `fi`
if true; then
  /etc/eks/bootstrap.sh my-cluster
