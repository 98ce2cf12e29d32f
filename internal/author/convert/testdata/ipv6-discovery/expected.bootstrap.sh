MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: text/x-shellscript; charset="us-ascii"

#!/bin/bash
set -ex
/etc/eks/bootstrap.sh v6 \
  --ip-family ipv6 \
  --dns-cluster-ip fd30:1c53:5f8a::a

--//--
