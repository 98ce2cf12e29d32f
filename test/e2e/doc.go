// Package e2e is nodeboot's real end-to-end suite: a real control plane
// (etcd, kube-apiserver, kube-controller-manager, nodeboot-approver) on
// loopback and a real containerd + kubelet configured only by the files
// `nodeboot init` renders from user data served by a local IMDS.
//
// The suite needs root on a throwaway machine and lives behind the e2e
// build tag; see README.md for how to run and debug it.
package e2e
