#!/bin/bash
# want: error line 3: --help makes bootstrap.sh print its help and exit 1
/etc/eks/bootstrap.sh --help
