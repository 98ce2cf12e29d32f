// Package kubeapi talks to the Kubernetes API server the way the kubelet
// does, without client-go: it reads the kubelet's kubeconfig, obtains its
// credential (bearer token, token file, client certificate or exec plugin)
// and makes the few calls the node side needs — /version, SelfSubjectReview,
// the node's Node object and kubelet-serving CSRs — over net/http with TLS
// verified against the configured cluster CA.
//
// The types are minimal JSON mirrors of the upstream k8s.io/api types,
// kept honest by a round-trip test against those types and by the e2e
// suite against a real API server. The package keeps the nodeboot binary,
// which runs on every node's boot path, free of client-go.
package kubeapi
