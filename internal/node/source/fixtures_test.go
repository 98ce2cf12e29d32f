package source

import (
	"encoding/base64"
	"strings"
)

// Fixtures of the reader tests: what is in the documents does not matter
// here (the core's tests split them), only where each came from.
const (
	nodeConfigA = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: a\n"
	nodeConfigB = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags: [--v=2]\n"
)

// threePartMIME has two NodeConfig parts and a shell part.
var threePartMIME = strings.Join([]string{
	`MIME-Version: 1.0`,
	`Content-Type: multipart/mixed; boundary="BOUNDARY"`,
	``,
	`--BOUNDARY`,
	`Content-Type: application/node.eks.aws`,
	``,
	strings.TrimSuffix(nodeConfigA, "\n"),
	`--BOUNDARY`,
	`Content-Type: application/node.eks.aws`,
	``,
	strings.TrimSuffix(nodeConfigB, "\n"),
	`--BOUNDARY`,
	`Content-Type: text/x-shellscript`,
	``,
	`#!/bin/bash`,
	`echo hello`,
	`--BOUNDARY--`,
}, "\n") + "\n"

// eksMNG is a one-part MIME document with a shell script, as EKS managed
// node groups write for AL2.
const eksMNG = "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\nContent-Type: text/x-shellscript; charset=\"us-ascii\"\n\n#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster\n\n--//--\n"

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
