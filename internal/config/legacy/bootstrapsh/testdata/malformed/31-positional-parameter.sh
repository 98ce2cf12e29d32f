#!/bin/bash
# want: error line 3: positional parameter $1 '$1' is not supported
/etc/eks/bootstrap.sh "$1" --use-max-pods false
