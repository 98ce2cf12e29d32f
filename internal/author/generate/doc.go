// Package generate writes, from one NodeGroup, the complete user data that
// an EKS managed node group, eksctl or Karpenter would put on the group's
// instances for each AMI family (AL2, AL2023, Bottlerocket, Windows), and
// merges a user's own user data with the producer's part the way that
// producer does. Everything here is pure: bytes in, bytes out.
//
// What each producer writes (legacy-formats.md §D, node-lifecycle.md §3.4,
// lifecycle-anchors.md §4; "inferred" marks shapes no public source shows):
//
//   - EKS managed node groups: AL2 — MIME with boundary "//", the user's
//     parts, then a text/x-shellscript part that sets B64_CLUSTER_CA,
//     API_SERVER_URL and K8S_CLUSTER_DNS_IP and calls bootstrap.sh with
//     --kubelet-extra-args '--node-labels=eks.amazonaws.com/… --max-pods=N'
//     and --use-max-pods false. AL2023 — the user's parts, then an
//     application/node.eks.aws NodeConfig with the cluster, maxPods and the
//     same labels as kubelet flags (inferred). Bottlerocket — one TOML
//     document of dotted keys with literal strings, where the user's
//     settings override EKS's. Windows — one <powershell> block, the
//     user's commands first, then the Start-EKSBootstrap.ps1 call
//     (inferred). Labels: eks.amazonaws.com/nodegroup-image, …/capacityType,
//     …/nodegroup and, from a launch template, …/sourceLaunchTemplateId and
//     …/sourceLaunchTemplateVersion. EKS has no kubelet settings API, so the
//     group's kubelet and containerd settings travel in the launch
//     template's own part.
//   - eksctl (self-managed node groups, where eksctl writes everything):
//     AL2 — #cloud-config writing /etc/eksctl/kubelet.env and
//     kubelet-extra.json and running a script that calls bootstrap.sh;
//     AL2023 — a NodeConfig with the cluster, clusterDNS and the labels and
//     taints as flags; Bottlerocket — [settings.kubernetes] tables with
//     node-labels and node-taints; Windows — the Start-EKSBootstrap.ps1
//     call with double-quoted parameters. Labels:
//     alpha.eksctl.io/cluster-name, alpha.eksctl.io/nodegroup-name, and on
//     AL2 node-lifecycle and alpha.eksctl.io/instance-id (from instance
//     metadata at boot).
//   - Karpenter: AL2 — the user's parts, then a bootstrap.sh call with
//     quoted --node-labels and --register-with-taints; AL2023 — the user's
//     parts, then "# Karpenter Generated NodeConfig" with taints in
//     kubelet.config.registerWithTaints (last wins, so Karpenter's values
//     win); Bottlerocket — the user's TOML with cluster fields, labels (its
//     own winning), max pods and kubelet settings written over it and
//     node-taints replaced, in [settings.kubernetes] tables; Windows — the
//     user's PowerShell, then the Start-EKSBootstrap.ps1 call. Labels:
//     karpenter.sh/nodepool, karpenter.sh/capacity-type; taints add
//     karpenter.sh/unregistered:NoExecute.
//
// Every MIME document uses the boundary "//" (eksctl uses a random one;
// a fixed one keeps the output stable), unless a part holds a line starting
// with "--//": then the first "==nodeboot-N==" that no part holds, or past
// N=100 one derived from a digest of the parts (convert.Boundary), with a
// note. Max pods are the group's value, else (not for eksctl, which writes
// only maxPodsPerNode) the VPC CNI formula for spec.instanceType from the
// embedded ENI table, else left to the node. test/oracle's
// TestGenerateAsEksctl checks the eksctl output against eksctl's own
// pkg/nodebootstrap. A
// group with only the cluster name gets user data without endpoint and CA,
// which nodeboot (or bootstrap.sh, Start-EKSBootstrap.ps1) looks up at
// boot; the notes say so.
package generate
