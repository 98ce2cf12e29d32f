// Package approver approves or denies kubelet serving certificate signing
// requests (signer kubernetes.io/kubelet-serving) in a cluster.
//
// The rules live in package policy, whose Decide is a pure function of the
// CSR, its Node, the EC2 inventory's answer and the operator's Policy.
// This package holds the effects around it: Reconciler is a
// controller-runtime reconciler that fetches the Node, asks the Inventory
// (cmd/nodeboot-approver wires an EC2 one, package ec2inventory) when
// policy.NeedsInventory says the answer matters, calls policy.Decide and
// writes the Approved or Denied condition through the CSR's approval
// subresource, with Events, logs and metrics. It holds back decisions that
// may still change (a Node not registered yet, addresses not reported yet,
// EC2 unreachable) for up to Reconciler.NodeWait.
package approver
