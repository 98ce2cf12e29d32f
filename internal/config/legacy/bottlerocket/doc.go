// Package bottlerocket reads Bottlerocket user data (TOML settings) into the
// hub, so that a node configured for Bottlerocket can be booted by nodeboot
// unchanged.
//
// All TOML spellings are accepted: tables ([settings.kubernetes]), dotted
// keys (settings.kubernetes.max-pods = 110), inline tables (settings =
// { kubernetes = { … } }), quoted keys ("eks.amazonaws.com/nodegroup") and
// literal strings. go-toml/v2 reads the values; its unstable parser maps
// every key to its line so that each problem names the absolute user-data
// line (the document's Source.Line plus the line in the TOML, minus one).
//
// Every settings.kubernetes key of the Bottlerocket settings model is
// known. Keys that are one KubeletConfiguration field (max-pods, eviction-hard,
// topology-manager-policy, …; see ConfigSettings) become spec.kubelet.config
// entries; node-labels, node-taints, node-ip, hostname-override and log-level
// become kubelet flags; cluster-name, api-server and cluster-certificate fill
// spec.cluster; authentication-mode and bootstrap-token fill spec.identity;
// hostname-override-source sets the InstanceIdNodeName feature gate;
// kubelet-extra-config adds its keys to spec.kubelet.config. Keys that only
// make sense on Bottlerocket (static-pods, credential-providers, …) are
// accepted with a warning and listed in Result.Ignored; so is every
// settings section other than kubernetes, network and dns (host-containers,
// bootstrap-containers, bootstrap-commands, ntp, kernel, …). Tables are
// reported key by key: one warning per leaf key, on that key's line
// (settings.host-containers.admin.enabled). An unknown
// settings.kubernetes key is an error with the nearest known key.
//
// Only cluster-name is required: api-server and cluster-certificate are
// looked up with eks:DescribeCluster when missing, as for nodeboot.io
// NodeConfig documents.
package bottlerocket
