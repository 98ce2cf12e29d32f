#!/bin/bash
# want: error line 3: a bootstrap.sh call inside a here-document fed to `bash` (body from line {4}) is not supported
sudo bash <<'SCRIPT'
/etc/eks/bootstrap.sh my-cluster
SCRIPT
