// Package awsauth holds EKS's rules for turning an IAM identity into a
// Kubernetes user, as the EKS authenticator (sigs.k8s.io/aws-iam-authenticator
// v0.6.30) applies them: ARNs and their canonical form, the kube-system/aws-auth
// ConfigMap parsed the way the authenticator's EKSConfigMap backend parses it
// (including what it keeps and drops when part of it is malformed), lookups,
// username and group templates, and what a node's mapping must say.
//
// It is pure: the node side (the doctor's identity advice) and the cluster
// side (nodeboot access) share these rules, so each lives here once.
package awsauth
