#!/bin/bash
# want: error line 4: --dns-cluster-ip: 10.100.0 is not an IP address
DNS=10.100.0
/etc/eks/bootstrap.sh my-cluster --dns-cluster-ip "$DNS"
