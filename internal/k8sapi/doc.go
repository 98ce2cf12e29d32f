// Package k8sapi holds lean copies of the Kubernetes API types the node agent
// reads and writes, under the same paths as upstream (clientcmd/v1 for
// k8s.io/client-go/tools/clientcmd/api/v1, kubeletconfig/v1beta1 for
// k8s.io/kubelet/config/v1beta1, …), so that the agent does not link
// client-go, k8s.io/api, k8s.io/component-base or Prometheus, whose package
// initialisation and size it would pay on every boot.
//
// Every type keeps its upstream field names, JSON names and encodings; each
// package's tests prove it against the upstream package (imported by the
// tests only).
package k8sapi
