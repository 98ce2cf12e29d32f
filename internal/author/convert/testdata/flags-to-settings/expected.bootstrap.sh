MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: text/x-shellscript; charset="us-ascii"

#!/bin/bash
set -ex
/etc/eks/bootstrap.sh edge \
  --apiserver-endpoint https://ABC.gr7.eu-west-1.eks.amazonaws.com \
  --kubelet-extra-args '--max-pods=110 --eviction-soft-grace-period=memory.available=1m30s --register-with-taints=old:NoSchedule --cpu-manager-policy-options=full-pcpus-only=true --topology-manager-policy-options=max-allowable-numa-nodes=8,prefer-closest-numa-nodes=true --reserved-memory=0:hugepages-2Mi=64Mi,memory=1Gi --pod-max-pids=4096 --max-pods=20 --register-with-taints=new=yes:NoExecute --kube-reserved=cpu=100m,memory=1Gi --eviction-hard=memory.available<5% --reserved-cpus=0-1 --node-ip=10.0.0.7 --hostname-override=ip-10-0-0-7.ec2.internal --v=3 --rotate-server-certificates=true --cgroup-driver=systemd'

--//--
