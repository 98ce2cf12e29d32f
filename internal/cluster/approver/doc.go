// Package approver decides and records approval of kubelet serving
// certificate signing requests (signer kubernetes.io/kubelet-serving).
//
// The package has two layers:
//
//   - Decide is a pure function: given a CSR, the Node object named by its
//     requester (or nil when it does not exist) and a Policy, it returns a
//     Decision. It performs no I/O, so every rule is table-tested.
//   - Reconciler is a controller-runtime reconciler that fetches the Node,
//     calls Decide and writes the Approved or Denied condition through the
//     CSR's approval subresource, with Events, logs and metrics.
//
// A CSR is approved only when the requester is the node itself, the x509
// request is signed (with a SHA-2 or Ed25519 signature, by an RSA key of at
// least 2048 bits, an ECDSA key on P-256/384/521 or an Ed25519 key) and
// names exactly that node, the usages are those of a
// TLS server, and every DNS and IP subject alternative name is one of the
// addresses in the Node's status. Node status addresses are written by the
// kubelet or the cloud controller manager, so Policy.AllowedCIDRs and
// Policy.HostnameRegex should bound what any node may claim.
package approver
