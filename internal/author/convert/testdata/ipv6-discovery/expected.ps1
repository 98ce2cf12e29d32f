<powershell>
# Max pods: Windows pods get secondary IPv4 addresses of the primary ENI, so the
# node fits IPv4 addresses per ENI - 1 pods (9 on m5.large), x16 with Windows
# prefix delegation (the kubelet default of 110 then applies). Pass --max-pods
# in -KubeletExtraArgs to choose another value.
[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\Amazon\EKS\Start-EKSBootstrap.ps1"
& $EKSBootstrapScriptFile -EKSClusterName 'v6' `
  -DNSClusterIP 'fd30:1c53:5f8a::a' `
  3>&1 4>&1 5>&1 6>&1
</powershell>
