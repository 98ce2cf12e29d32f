<powershell>
# Max pods: Windows pods get secondary IPv4 addresses of the primary ENI, so the
# node fits IPv4 addresses per ENI - 1 pods (9 on m5.large), x16 with Windows
# prefix delegation (the kubelet default of 110 then applies). Pass --max-pods
# in -KubeletExtraArgs to choose another value.
[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\Amazon\EKS\Start-EKSBootstrap.ps1"
& $EKSBootstrapScriptFile -EKSClusterName 'edge' `
  -KubeletExtraArgs '--eviction-soft-grace-period=memory.available=1m30s --register-with-taints=old:NoSchedule --max-pods=20 --register-with-taints=new=yes:NoExecute --kube-reserved=cpu=100m,memory=1Gi --eviction-hard=memory.available<5% --reserved-cpus=0-1 --node-ip=10.0.0.7 --hostname-override=ip-10-0-0-7.ec2.internal --v=3 --rotate-server-certificates=true --cgroup-driver=systemd' `
  3>&1 4>&1 5>&1 6>&1
</powershell>
