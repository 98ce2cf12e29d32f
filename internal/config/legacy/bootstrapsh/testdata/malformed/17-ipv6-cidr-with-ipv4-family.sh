#!/bin/bash
# want: error line 3: --service-ipv6-cidr makes the cluster IPv6, but --ip-family says ipv4; bootstrap.sh refuses this combination
/etc/eks/bootstrap.sh my-cluster --ip-family ipv4 --service-ipv6-cidr fd30:1c53:5f8a::/108
