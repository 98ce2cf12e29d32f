// Package discovery finds the cluster CA for kubeadm-style bootstrap-token
// joins when user data carries no CA: it reads the kube-public/cluster-info
// ConfigMap without trusting the server yet, then trusts the CA it holds
// only if (a) the ConfigMap is signed for our token with the token's secret
// (a detached HS256 JWS written by kube-controller-manager's bootstrapsigner,
// which proves the server knows the token) and (b) the CA's public key
// matches one of the sha256 pins from user data. Finally the ConfigMap is
// fetched again over a connection verified with that CA. Without a pin the
// caller must opt in to skipping (b) explicitly.
package discovery
