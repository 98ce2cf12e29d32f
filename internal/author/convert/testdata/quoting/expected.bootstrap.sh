MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: text/x-shellscript; charset="us-ascii"

#!/bin/bash
set -ex
/etc/eks/bootstrap.sh 'it'\''s-prod' \
  --apiserver-endpoint https://ABC.yl4.us-east-1.eks.amazonaws.com \
  --b64-cluster-ca LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJnakNDQVNlZ0F3SUJBZ0lVTTZMa3VnekcvOG15b2FzVVo3K2VVNmVQdnNFd0NnWUlLb1pJemowRUF3SXcKRlRFVE1CRUdBMVVFQXd3S2EzVmlaWEp1WlhSbGN6QWdGdzB5TmpFeE1qSXdPRE0zTVRkYUdBOHlNVEkyTVRBeQpPVEE0TXpjeE4xb3dGVEVUTUJFR0ExVUVBd3dLYTNWaVpYSnVaWFJsY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHClNNNDlBd0VIQTBJQUJLVkhuYTljQVk3ZisydDIvbUxaNThiZ3UyS3o4RXhoS2NNcENmK1IxUU9tU010azV3Vy8KRE9tenNUZyszU3VYejBhSko1WEtoL00xTmlBS3ozVXgvdzZqVXpCUk1CMEdBMVVkRGdRV0JCUmVwRG1BWlJzbApia0NDMW1JblExdS9KUnBaQ3pBZkJnTlZIU01FR0RBV2dCUmVwRG1BWlJzbGJrQ0MxbUluUTF1L0pScFpDekFQCkJnTlZIUk1CQWY4RUJUQURBUUgvTUFvR0NDcUdTTTQ5QkFNQ0Ewa0FNRVlDSVFEOFFhRUlPbGpSam9QRjJJaXkKcEN0blg1dDY0bFhnU0pCMG04VVNOT3FJRGdJaEFKNy9mNGgwUnRuc0F3ZHpQcFJnQ1V4c09GYy9JS2s1L2NYawppZzNKS1c0MAotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg== \
  --service-ipv4-cidr 10.100.0.0/16 \
  --enable-local-outpost true \
  --cluster-id 6b4b0b8a-7a6d-4e53-9d6c-1b2a3c4d5e6f \
  --kubelet-extra-args '--provider-id=aws:///us-east-1a/i-0123456789abcdef0 --allowed-unsafe-sysctls=net.core.somaxconn,kernel.msg* --eviction-hard=memory.available<200Mi'

--//--
