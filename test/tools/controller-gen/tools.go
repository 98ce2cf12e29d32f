//go:build tools

// Package tools pins the controller-gen command that make generate builds.
package tools

import (
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
