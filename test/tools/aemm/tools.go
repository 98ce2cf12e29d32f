//go:build tools

// Package tools pins the amazon-ec2-metadata-mock command that the tests build.
package tools

import (
	_ "github.com/aws/amazon-ec2-metadata-mock/cmd"
)
