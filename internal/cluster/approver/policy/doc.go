// Package policy is the pure core of the kubelet serving CSR approver
// (signer kubernetes.io/kubelet-serving): Decide takes a CSR, the Node named
// by its requester (or nil when it does not exist), the EC2 inventory's
// answer about the instance behind that Node and a Policy, and returns a
// Decision. It performs no I/O, so every rule is table-tested and fuzzed;
// package approver fetches what it reads and writes what it decides.
//
// A CSR is approved only when the requester is the node itself, the x509
// request is signed (with a SHA-2 or Ed25519 signature, by an RSA key of at
// least 2048 bits, an ECDSA key on P-256/384/521 or an Ed25519 key) and
// names exactly that node, the usages are those of a TLS server, and every
// DNS and IP subject alternative name is one of the addresses in the Node's
// status (and a DNS SAN a host name, no wildcard).
//
// A kubelet may rewrite its own Node's status.addresses, so the Node's
// addresses only prove that the node agrees with itself. With
// Policy.Inventory set to InventoryEC2, every SAN must also be an address
// of the running EC2 instance behind the Node, as DescribeInstances reports
// it, and that instance must be the node's: its private DNS name or ID is
// the node name (the identity the node's credential is bound to), because
// spec.providerID is written by the kubelet too. Policy.AllowedCIDRs and
// Policy.HostnameRegex bound what any node may claim in addition.
package policy
