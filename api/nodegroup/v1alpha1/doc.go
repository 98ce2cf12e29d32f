// Package v1alpha1 holds the nodeboot.io/v1alpha1 NodeGroup API: one node
// group described once, from which `nodeboot userdata generate` writes the
// user data EKS managed node groups, eksctl or Karpenter would put on its
// instances, for any AMI family (AL2, AL2023, Bottlerocket, Windows).
//
// The spec says what the node group's nodes are: the cluster they join
// (the name alone, or also the API server endpoint, CA and service CIDR,
// as the producers write them), the image and instance type, on-demand or
// spot, labels and taints, the max-pods policy, and kubelet and containerd
// settings beyond those. Unknown fields are errors; every problem names
// its field and line.
//
// The types carry no behaviour; internal/author/nodegroup decodes and
// checks them, internal/author/generate writes user data from them.
// Complete example:
//
//	apiVersion: nodeboot.io/v1alpha1
//	kind: NodeGroup
//	metadata:
//	  name: payments
//	spec:
//	  cluster:
//	    name: my-cluster
//	    apiServerEndpoint: https://0123456789ABCDEF.gr7.us-west-2.eks.amazonaws.com
//	    certificateAuthority: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t...  # base64 PEM
//	    cidr: 10.100.0.0/16
//	  imageId: ami-0123456789abcdef0
//	  instanceType: m5.large
//	  capacityType: ON_DEMAND
//	  launchTemplate:
//	    id: lt-0123456789abcdef0
//	    version: "3"
//	  labels:
//	    team: payments
//	  taints:
//	    - key: dedicated
//	      value: payments
//	      effect: NoSchedule
//	  maxPods:
//	    prefixDelegation: false
//	    cap: true
//	  kubelet:
//	    config:
//	      shutdownGracePeriod: 30s
//	    flags: [--v=2]
//	  containerd:
//	    config: |
//	      [plugins."io.containerd.grpc.v1.cri".containerd]
//	      discard_unpacked_layers = false
package v1alpha1
