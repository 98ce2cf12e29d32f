#!/bin/bash
# want: error line 3: a bootstrap.sh call inside a string run by `bash` is not supported
bash -xc "/etc/eks/bootstrap.sh my-cluster --use-max-pods false"
