// Package managerkit is the controller-runtime manager setup the
// cluster-side binaries (nodeboot-approver, nodeboot-rollout controller)
// share: the manager's command-line options and their flags, and a
// constructor that builds the manager with leader election through a
// Lease, the metrics and health probe servers, and the /healthz and
// /readyz checks. Each binary keeps its own scheme, cache options,
// reconcilers and startup log lines.
package managerkit
