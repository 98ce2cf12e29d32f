// Package app wires the nodeboot-approver binary: command-line flags, the
// Kubernetes client configuration, logging, and a controller-runtime
// manager running approver.Reconciler.
package app
