MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: text/x-shellscript; charset="us-ascii"

#!/bin/bash
set -ex
/etc/eks/bootstrap.sh prod \
  --apiserver-endpoint https://0123456789ABCDEF.gr7.us-west-2.eks.amazonaws.com \
  --b64-cluster-ca LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJnakNDQVNlZ0F3SUJBZ0lVTTZMa3VnekcvOG15b2FzVVo3K2VVNmVQdnNFd0NnWUlLb1pJemowRUF3SXcKRlRFVE1CRUdBMVVFQXd3S2EzVmlaWEp1WlhSbGN6QWdGdzB5TmpFeE1qSXdPRE0zTVRkYUdBOHlNVEkyTVRBeQpPVEE0TXpjeE4xb3dGVEVUTUJFR0ExVUVBd3dLYTNWaVpYSnVaWFJsY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHClNNNDlBd0VIQTBJQUJLVkhuYTljQVk3ZisydDIvbUxaNThiZ3UyS3o4RXhoS2NNcENmK1IxUU9tU010azV3Vy8KRE9tenNUZyszU3VYejBhSko1WEtoL00xTmlBS3ozVXgvdzZqVXpCUk1CMEdBMVVkRGdRV0JCUmVwRG1BWlJzbApia0NDMW1JblExdS9KUnBaQ3pBZkJnTlZIU01FR0RBV2dCUmVwRG1BWlJzbGJrQ0MxbUluUTF1L0pScFpDekFQCkJnTlZIUk1CQWY4RUJUQURBUUgvTUFvR0NDcUdTTTQ5QkFNQ0Ewa0FNRVlDSVFEOFFhRUlPbGpSam9QRjJJaXkKcEN0blg1dDY0bFhnU0pCMG04VVNOT3FJRGdJaEFKNy9mNGgwUnRuc0F3ZHpQcFJnQ1V4c09GYy9JS2s1L2NYawppZzNKS1c0MAotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg== \
  --dns-cluster-ip 10.100.0.10 \
  --kubelet-extra-args '--max-pods=29 --node-labels=eks.amazonaws.com/capacityType=ON_DEMAND,eks.amazonaws.com/nodegroup=core,team=payments --register-with-taints=dedicated=gpu:NoSchedule,dedicated=gpu:NoExecute,example.com/maintenance:PreferNoSchedule'

--//--
