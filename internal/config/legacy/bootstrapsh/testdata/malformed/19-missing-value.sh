#!/bin/bash
# want: error line 3: --apiserver-endpoint needs a value, but it is the last argument
/etc/eks/bootstrap.sh my-cluster --apiserver-endpoint
