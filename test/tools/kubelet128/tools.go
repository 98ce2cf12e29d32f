//go:build tools

// Package tools pins the kubelet that test/kubeletcompat runs.
package tools

import _ "k8s.io/kubernetes/cmd/kubelet"
