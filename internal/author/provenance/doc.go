// Package provenance previews the configuration a node ends up with when a
// user's user data is merged with the part EKS, eksctl or Karpenter
// generates, and says, for every setting, which part set it and which
// values it overrode.
//
// The parts are merged as the node does: in the order the producer puts
// them (package generate), each part decoded as nodeboot reads it, later
// values winning — NodeConfig documents and bootstrap.sh calls in MIME
// order, Bottlerocket TOML layers in the producer's precedence (EKS: the
// user's settings over EKS's; Karpenter: Karpenter's over the user's,
// node-taints replaced wholesale, settings its model lacks dropped),
// Windows commands in order. Settings are compared at the level the
// kubelet and nodeboot merge them: cluster fields one by one, every leaf
// of kubelet.config (objects merge key by key), each node label, the taint
// list as a whole, kubelet flags by name, containerd TOML and runtime-spec
// leaves. A kubelet flag beats the config field it stands for, whatever
// the order, as it does in the kubelet.
//
// An override between a user part and a generated part is a warning when
// it touches labels, taints, cluster fields or kubelet settings.
package provenance
