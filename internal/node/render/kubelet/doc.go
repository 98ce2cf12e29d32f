// Package kubelet renders every file the kubelet needs on an EKS-style node:
// the base KubeletConfiguration, the user's drop-in, the kubeconfig (exec
// credential) or bootstrap kubeconfig (TLS bootstrap), the cluster CA, the
// image credential provider config and the systemd environment file that
// carries the kubelet's command line.
//
// Everything here is pure: Render reads a hub.NodeConfig whose Status was
// filled by enrichment plus a few values the caller computed (Inputs) and
// returns the same bytes for the same input. Paths and formats follow nodeadm
// (see nodeadm-behavior.md §5.1–§5.3, §5.7); where nodeboot deliberately
// differs the doc comment of the affected function says so.
//
// Kubelet-version dependent behaviour lives in one table, versionGates, in
// versiongates.go.
package kubelet
