// Package convert writes a hub.Spec as user data in each format nodeboot
// reads, so that a node's configuration can move between AMI families:
//
//   - NodeConfig: MIME multipart with one application/node.eks.aws part, a
//     node.eks.aws/v1alpha1 NodeConfig when nodeadm can read everything,
//     else a nodeboot.io/v1alpha1 one (extensions, or cluster fields left to
//     eks:DescribeCluster);
//   - BootstrapSh: MIME multipart with a text/x-shellscript part calling the
//     Amazon Linux 2 /etc/eks/bootstrap.sh;
//   - Bottlerocket: TOML settings ([settings.kubernetes] and friends);
//   - Windows: a <powershell> block calling Start-EKSBootstrap.ps1.
//
// Emitters are pure and deterministic (fixed MIME boundary, sorted map
// keys). Each returns, besides the bytes, the settings the target cannot
// express: one line per hub field path, "spec.kubelet.config[shutdownGracePeriod]:
// bootstrap.sh has no kubelet flag for it", in field order. Those settings
// are left out of the output; nothing is dropped without a line.
package convert
