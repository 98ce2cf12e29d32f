// Package rollout embeds the NodeGroupRollout CRD of this directory (made
// by make generate), so that the command line checks a rollout against the
// very schema and rules the API server enforces (package
// internal/cluster/rollout/admission). The rest of the directory is the
// controller's kustomization.
package rollout

import _ "embed"

// CRD is nodeboot.io_nodegrouprollouts.yaml.
//
//go:embed nodeboot.io_nodegrouprollouts.yaml
var CRD []byte
