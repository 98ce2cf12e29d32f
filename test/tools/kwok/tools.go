//go:build tools

// Package tools pins the kwok command that the rollout end-to-end suite builds.
package tools

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
