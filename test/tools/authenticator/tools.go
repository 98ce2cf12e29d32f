//go:build tools

// Package tools pins EKS's authenticator, aws-iam-authenticator, that the
// end-to-end suite runs unmodified as the API server's webhook token
// authenticator.
package tools

import (
	_ "sigs.k8s.io/aws-iam-authenticator/cmd/aws-iam-authenticator"
)
