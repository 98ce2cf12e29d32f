// Package nodegroup reads nodeboot.io/v1alpha1 NodeGroup documents (see
// api/nodegroup/v1alpha1) strictly, the way NodeConfig documents are read:
// every problem at once, each with its field path and line:column.
//
// Beyond the structure, it checks the values: the group name, the cluster
// fields (the same rules as NodeConfig's), the image and launch template
// IDs, the capacity type, labels and taints as the kubelet would take
// them, the max-pods policy and the kubelet and containerd settings
// (KubeletConfiguration fields, TOML). Settings a NodeGroup has its own
// field for (max pods, taints, cluster DNS from the service CIDR) are
// refused inside spec.kubelet, and labels in the domains the producers
// write themselves (eks.amazonaws.com, alpha.eksctl.io, karpenter.sh) get a
// warning.
package nodegroup
