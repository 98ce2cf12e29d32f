<powershell>
# Max pods: Windows pods get secondary IPv4 addresses of the primary ENI, so the
# node fits IPv4 addresses per ENI - 1 pods (9 on m5.large), x16 with Windows
# prefix delegation (the kubelet default of 110 then applies). Pass --max-pods
# in -KubeletExtraArgs to choose another value.
[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\Amazon\EKS\Start-EKSBootstrap.ps1"
& $EKSBootstrapScriptFile -EKSClusterName 'it''s-prod' `
  -APIServerEndpoint 'https://ABC.yl4.us-east-1.eks.amazonaws.com' `
  -Base64ClusterCA 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJnakNDQVNlZ0F3SUJBZ0lVTTZMa3VnekcvOG15b2FzVVo3K2VVNmVQdnNFd0NnWUlLb1pJemowRUF3SXcKRlRFVE1CRUdBMVVFQXd3S2EzVmlaWEp1WlhSbGN6QWdGdzB5TmpFeE1qSXdPRE0zTVRkYUdBOHlNVEkyTVRBeQpPVEE0TXpjeE4xb3dGVEVUTUJFR0ExVUVBd3dLYTNWaVpYSnVaWFJsY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHClNNNDlBd0VIQTBJQUJLVkhuYTljQVk3ZisydDIvbUxaNThiZ3UyS3o4RXhoS2NNcENmK1IxUU9tU010azV3Vy8KRE9tenNUZyszU3VYejBhSko1WEtoL00xTmlBS3ozVXgvdzZqVXpCUk1CMEdBMVVkRGdRV0JCUmVwRG1BWlJzbApia0NDMW1JblExdS9KUnBaQ3pBZkJnTlZIU01FR0RBV2dCUmVwRG1BWlJzbGJrQ0MxbUluUTF1L0pScFpDekFQCkJnTlZIUk1CQWY4RUJUQURBUUgvTUFvR0NDcUdTTTQ5QkFNQ0Ewa0FNRVlDSVFEOFFhRUlPbGpSam9QRjJJaXkKcEN0blg1dDY0bFhnU0pCMG04VVNOT3FJRGdJaEFKNy9mNGgwUnRuc0F3ZHpQcFJnQ1V4c09GYy9JS2s1L2NYawppZzNKS1c0MAotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg==' `
  -ServiceCIDR '10.100.0.0/16' `
  -KubeletExtraArgs '--provider-id=aws:///us-east-1a/i-0123456789abcdef0 --eviction-hard=memory.available<200Mi' `
  3>&1 4>&1 5>&1 6>&1
</powershell>
