// Package target checks user data against what will consume it before
// launch: EKS managed node groups and Karpenter, which merge it with the
// part they generate, or a self-managed node group, which runs it as is,
// on one AMI family. It finds what otherwise shows up at boot or never:
//
//   - parts whose content type does not fit the family: a NodeConfig in a
//     text/x-shellscript part (run by bash), YAML that Karpenter wraps as a
//     shell script on Amazon Linux 2, shell or MIME for Bottlerocket,
//     anything but PowerShell for Windows, launch template user data that
//     is not MIME for a managed node group;
//   - Bottlerocket TOML outside what the consumer accepts: the subset of
//     TOML managed node groups parse (no quotes inside quoted keys, no
//     escaped quotes in values, no mixed-type arrays, no quoted dotted
//     keys in [table] headers), and for Karpenter the settings its model
//     drops or cannot decode;
//   - settings the generated part will override (or, for EKS on
//     Bottlerocket, that override EKS's): with the node group's spec, every
//     value that loses; without it, every setting the producer always
//     writes.
//
// Each finding is a diag.Problem with its source, part and line.
package target
