// Package discovery finds the cluster CA for kubeadm-style bootstrap-token
// joins when user data carries no CA. The endpoint must be https://. It
// reads the kube-public/cluster-info ConfigMap without trusting the server
// yet; the ConfigMap's kubeconfig must name exactly one cluster, and its CA
// data is used only if (a) the ConfigMap is signed for our token with the
// token's secret (a detached HS256 JWS written by kube-controller-manager's
// bootstrapsigner, which proves the server knows the token) and (b) only the
// certificates whose public key matches one of the sha256 pins from user
// data are kept: a CA appended to the bundle by whoever served it is never
// trusted. Finally the ConfigMap is fetched again over a connection verified
// with those certificates, and must say what the first read said. Without a
// pin the caller must opt in to skipping (b) explicitly; the whole bundle is
// then trusted.
package discovery
