// Package v1alpha1 holds the node.eks.aws/v1alpha1 NodeConfig API exactly as
// AWS's nodeadm accepts it, so user data written for Amazon Linux 2023 works
// unchanged with nodeboot. The types carry no behaviour: decoders turn them
// into the internal hub type, and everything else works on the hub.
//
// Example:
//
//	apiVersion: node.eks.aws/v1alpha1
//	kind: NodeConfig
//	spec:
//	  cluster:
//	    name: my-cluster
//	    apiServerEndpoint: https://example.eks.amazonaws.com
//	    certificateAuthority: LS0tLS1CRUdJTi...
//	    cidr: 10.100.0.0/16
package v1alpha1
