MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: text/x-shellscript; charset="us-ascii"

#!/bin/bash
set -ex
/etc/eks/bootstrap.sh many \
  --apiserver-endpoint https://0123456789ABCDEF.gr7.us-west-2.eks.amazonaws.com \
  --b64-cluster-ca LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJmekNDQVNXZ0F3SUJBZ0lVQjNWN2ZVTEtsQWR0YU9jWDM5NjVMUFBmRVJnd0NnWUlLb1pJemowRUF3SXcKRlRFVE1CRUdBMVVFQXd3S2EzVmlaWEp1WlhSbGN6QWVGdzB5TmpFeE1qSXdPRE00TWpSYUZ3MHpOakV4TVRrdwpPRE00TWpSYU1CVXhFekFSQmdOVkJBTU1DbXQxWW1WeWJtVjBaWE13V1RBVEJnY3Foa2pPUFFJQkJnZ3Foa2pPClBRTUJCd05DQUFSNjY4SytmWFRLS2c2Y3hrT0kzNTFrNm5pd2xzdmQxRHhhYW5uc014T3NFNkpiOGNzaHZyZW0KYlpyUGFSVVh5dnNqKzhPYmRYYnJEOUsybFNXaWhOM0xvMU13VVRBZEJnTlZIUTRFRmdRVVc3UmR1VnNHS2dCMAo1RFBIWU90VWRzWFBBOFV3SHdZRFZSMGpCQmd3Rm9BVVc3UmR1VnNHS2dCMDVEUEhZT3RVZHNYUEE4VXdEd1lEClZSMFRBUUgvQkFVd0F3RUIvekFLQmdncWhrak9QUVFEQWdOSUFEQkZBaUF4S3hidEttUlAvVUpDQ3dPRklYR24KeVlMajUxeE05MmtWMHY5NFF5cGN2QUloQVBaQzlLdk44dUcvVEpZdlVFSUJraUdGNkt4c1liK3pTMldKK0M3NApGZUhZCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K \
  --dns-cluster-ip 10.100.0.10,10.100.0.11 \
  --kubelet-extra-args '--max-pods=58 --cluster-domain=cluster.local --kube-reserved=cpu=90m,ephemeral-storage=1Gi,memory=893Mi --system-reserved=cpu=100m,memory=100Mi --eviction-hard=memory.available<100Mi,nodefs.available<10% --eviction-soft=memory.available<300Mi --eviction-soft-grace-period=memory.available=1m30s --eviction-max-pod-grace-period=30 --image-gc-high-threshold=85 --image-gc-low-threshold=80 --minimum-image-ttl-duration=2m --registry-qps=10 --registry-burst=20 --event-qps=50 --event-burst=100 --kube-api-qps=15 --kube-api-burst=30 --container-log-max-size=50Mi --container-log-max-files=4 --provider-id=aws:///us-west-2a/i-0123456789abcdef0 --rotate-server-certificates=true --cpu-cfs-quota=false --cpu-manager-policy=static --cpu-manager-policy-options=full-pcpus-only=true --cpu-manager-reconcile-period=5s --topology-manager-policy=best-effort --topology-manager-scope=pod --topology-manager-policy-options=max-allowable-numa-nodes=8,prefer-closest-numa-nodes=true --memory-manager-policy=Static --reserved-memory=0:hugepages-2Mi=64Mi,memory=1Gi --reserved-cpus=0-1 --pod-max-pids=4096 --allowed-unsafe-sysctls=net.core.somaxconn,kernel.msg* --seccomp-default=true --container-runtime-endpoint=unix:///run/containerd/containerd.sock --node-labels=node.kubernetes.io/lifecycle=spot --register-with-taints=dedicated=batch:NoSchedule --node-ip=10.0.3.7 --hostname-override=ip-10-0-3-7.us-west-2.compute.internal --v=3'

--//--
