// Package merge combines several hub.Spec values, in source order, into the
// one Spec the renderers read. It also exports the TOML and JSON-object deep
// merges the renderers reuse to lay user fragments over generated defaults.
//
// The rules (compatible with nodeadm's merge, written down field by field):
//
//   - Scalars (strings, ints, plain bools, byte strings such as
//     cluster.certificateAuthority): a non-empty later value wins. An empty
//     later value never clears an earlier one, so a value cannot be unset by a
//     later document.
//   - *bool fields (cluster.enableOutpost, maxPods.prefixDelegation,
//     maxPods.customNetworking, maxPods.cap, maxPods.set): any non-nil later
//     value wins, so an explicit false overrides an earlier true.
//   - kubelet.flags: appended, earlier documents first. The kubelet parses
//     flags with pflag, where the last occurrence of a scalar flag wins and
//     list flags such as --node-labels accumulate.
//   - kubelet.config and containerd.baseRuntimeSpec: deep-merged as JSON
//     objects (see JSONObjects): nested objects key by key, every other value
//     (lists included) replaced wholesale by the later one; a later JSON null
//     is kept as null, which the kubelet and containerd decode as "unset".
//   - containerd.config: both TOML documents are parsed into maps and
//     deep-merged (see TOML): tables key by key, arrays and scalars replaced.
//     The result stays TOML text, re-serialised by go-toml v2 (sorted keys,
//     comments dropped). When only one side is non-blank its text is kept
//     verbatim after a syntax check.
//   - featureGates: merged per gate; a later false overrides an earlier true.
//   - instance.environment and identity.exec.env: merged per key; for
//     environment the inner per-service maps are merged per variable. A key
//     that is present wins even when its value is empty (an explicit empty
//     variable is a value, not an absence).
//   - Every other slice (instance.network.nameservers and domains,
//     instance.localStorage.disabledMounts, identity.exec.args,
//     identity.bootstrapToken.caCertHashes): replaced by a non-empty later
//     slice.
//   - The nodeboot extensions identity and maxPods follow the same scalar,
//     *bool and slice rules.
//
// The result never shares maps, slices or pointers with the inputs, and the
// output is a pure function of the inputs (map iteration order never shows).
package merge
