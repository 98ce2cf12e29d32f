//go:build tools

// Package tools pins staticcheck, which make lint builds and runs.
package tools

import (
	_ "honnef.co/go/tools/cmd/staticcheck"
)
