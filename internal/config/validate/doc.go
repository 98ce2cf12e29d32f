// Package validate checks a hub.Spec and reports every problem at once as
// field errors whose paths ("spec.cluster.cidr", "spec.kubelet.flags[2]",
// "spec.instance.environment[default]") match the positions decoders
// record, so diag.FromFieldErrors can place each error on its line.
//
// There are two entry points:
//
//   - Spec checks one document's values: formats (URL, CIDR, base64 PEM CA,
//     names, enums, the max pods expression) and the two rules that hold
//     inside a single document (enableOutpost needs id; a bootstrap token
//     needs a CA pin). Decoders run it on every document they produce.
//   - Merged checks the spec after all sources are merged: completeness
//     (what the node cannot boot without) and rules across fields that may
//     come from different sources. DiscoveryNeeded lists what may be
//     missing because eks:DescribeCluster can supply it.
//
// Details are lower-case and say what to do.
package validate
