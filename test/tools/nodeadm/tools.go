//go:build tools

// Package tools pins nodeadm, the agent hack/bench-vs-nodeadm compares
// nodeboot with. It is built only for that benchmark, never shipped.
package tools

import (
	_ "github.com/awslabs/amazon-eks-ami/nodeadm/cmd/nodeadm"
)
