package userdatagen

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// docPlan says what one NodeConfig document carries: the first carries
// the cluster (as drop-ins, later ones add settings and may override).
type docPlan struct {
	cluster bool
}

// plan returns the plan of the next NodeConfig document.
func (b *builder) plan(_ int) []docPlan {
	first := !b.hasCluster
	b.hasCluster = true
	return []docPlan{{cluster: first || b.chance(0.15)}}
}

// nodeConfigDocument renders one NodeConfig as YAML or JSON.
func (b *builder) nodeConfigDocument(p docPlan) (string, string) {
	spec := map[string]any{}
	if p.cluster {
		spec["cluster"] = b.cluster()
	}
	b.maybe(0.6, func() { spec["kubelet"] = b.kubelet() })
	b.maybe(0.2, func() { spec["containerd"] = b.containerd() })
	b.maybe(0.25, func() { spec["instance"] = b.instance() })
	b.maybe(0.15, func() {
		spec["featureGates"] = map[string]any{"InstanceIdNodeName": b.chance(0.8)}
		b.note("feature gate InstanceIdNodeName")
	})
	b.maybe(0.04, func() { spec["extraField"] = "unknown to nodeadm"; b.note("unknown spec field") })
	apiVersion := "node.eks.aws/v1alpha1"
	if b.chance(0.02) {
		apiVersion = "node.eks.aws/v1alpha"
		b.note("apiVersion typo")
	}
	doc := map[string]any{"apiVersion": apiVersion, "kind": "NodeConfig", "spec": spec}
	if b.chance(0.3) {
		indent := pick(b.r, "", "  ", "    ")
		out, _ := json.MarshalIndent(doc, "", indent)
		return string(out) + "\n", "JSON"
	}
	out, _ := yaml.Marshal(doc)
	text := string(out)
	if b.chance(0.3) {
		text = "---\n" + text
	}
	return text, "YAML"
}

func (b *builder) maybe(p float64, f func()) {
	if b.chance(p) {
		f()
	}
}

// cluster is the cluster section, a required field sometimes left out.
func (b *builder) cluster() map[string]any {
	c := map[string]any{
		"name":              pick(b.r, "my-cluster", "prod", "team-a-eks"),
		"apiServerEndpoint": pick(b.r, "https://example.com", "https://0123456789ABCDEF.gr7.us-west-2.eks.amazonaws.com"),
		"certificateAuthority": pick(b.r, base64.StdEncoding.EncodeToString(b.g.caPEM), base64.StdEncoding.EncodeToString(b.g.caPEM),
			"Y2VydGlmaWNhdGVBdXRob3JpdHk="),
		"cidr": pick(b.r, "10.100.0.0/16", "172.20.0.0/16", "10.100.0.0/24", "fd00:10:96::/108", "172.20.5.0/16"),
	}
	if b.chance(0.06) {
		missing := pick(b.r, "name", "apiServerEndpoint", "certificateAuthority", "cidr")
		delete(c, missing)
		b.note("cluster without %s", missing)
	}
	if b.chance(0.04) {
		c["clusterEndpoint"] = "https://example.com"
		b.note("unknown cluster field")
	}
	return c
}

// kubeletFlagSpellings are flags as users write them in kubelet.flags: the
// kubelet gets the item split into words by systemd.
var kubeletFlagSpellings = []string{
	"--node-labels=team=red", "--node-labels team=blue", `--node-labels="team=green,tier=web"`, "--node-labels=a=b,c=d",
	"--register-with-taints=dedicated=gpu:NoSchedule", "--register-with-taints=spot=true:PreferNoSchedule",
	"--v=4", "--v 3", "--max-pods=30", "--kube-reserved=cpu=200m,memory=300Mi", "--cluster-dns=10.100.0.10",
	"--image-gc-high-threshold=80", "--eviction-hard=memory.available<300Mi",
}

func (b *builder) kubelet() map[string]any {
	k := map[string]any{}
	b.maybe(0.6, func() { k["config"] = b.kubeletConfig() })
	b.maybe(0.5, func() {
		var flags []string
		for range 1 + b.r.IntN(3) {
			flags = append(flags, pick(b.r, kubeletFlagSpellings...))
		}
		k["flags"] = flags
		b.note("kubelet flags %q", flags)
	})
	b.maybe(0.08, func() {
		k["maxPodsExpression"] = pick(b.r, "max_pods + 2", "(default_enis - 1) * (ips_per_eni - 1) + 2")
		b.note("maxPodsExpression")
	})
	return k
}

// kubeletConfig is a kubelet.config fragment of real KubeletConfiguration
// fields, in the forms nodeadm's cases use.
func (b *builder) kubeletConfig() map[string]any {
	options := []func(map[string]any){
		func(c map[string]any) { c["maxPods"] = pick(b.r, 20, 58, 110) },
		func(c map[string]any) { c["clusterDNS"] = []any{pick(b.r, "10.100.0.10", "169.254.20.10")} },
		func(c map[string]any) { c["kubeReserved"] = map[string]any{"cpu": "100m", "memory": "500Mi"} },
		func(c map[string]any) { c["evictionHard"] = map[string]any{"memory.available": "200Mi"} },
		func(c map[string]any) { c["systemReserved"] = map[string]any{"cpu": "150m"} },
		func(c map[string]any) { c["podPidsLimit"] = 4096 },
		func(c map[string]any) { c["containerLogMaxSize"] = "20Mi" },
		func(c map[string]any) { c["featureGates"] = map[string]any{"GracefulNodeShutdown": true} },
		func(c map[string]any) { c["shutdownGracePeriod"] = "60s" },
		func(c map[string]any) { c["systemReservedCgroup"], c["kubeReservedCgroup"] = "", "" },
	}
	c := map[string]any{}
	for range 1 + b.r.IntN(3) {
		pick(b.r, options...)(c)
	}
	b.note("kubelet.config %s", strings.Join(sortedKeys(c), ","))
	return c
}

func (b *builder) containerd() map[string]any {
	c := map[string]any{}
	b.maybe(0.7, func() {
		c["config"] = pick(b.r,
			"version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\ndiscard_unpacked_layers = false\n",
			"[plugins.\"io.containerd.grpc.v1.cri\".registry]\nconfig_path = \"/etc/containerd/certs.d\"\n")
		b.note("containerd.config")
	})
	b.maybe(0.4, func() {
		c["baseRuntimeSpec"] = map[string]any{"process": map[string]any{"rlimits": []any{
			map[string]any{"type": "RLIMIT_NOFILE", "soft": 1024, "hard": 4096}}}}
		b.note("baseRuntimeSpec")
	})
	return c
}

func (b *builder) instance() map[string]any {
	in := map[string]any{}
	b.maybe(0.5, func() {
		in["environment"] = map[string]any{
			pick(b.r, "default", "kubelet", "containerd"): map[string]any{"MY_SETTING": pick(b.r, "on", `quote "and" backslash \`)},
		}
		b.note("instance.environment")
	})
	b.maybe(0.4, func() {
		in["network"] = map[string]any{"nameservers": []any{"10.0.0.2"}, "domains": []any{"corp.example"}}
		b.note("instance.network")
	})
	b.maybe(0.2, func() {
		in["localStorage"] = map[string]any{"strategy": pick(b.r, "RAID0", "Mount")}
		b.note("localStorage")
	})
	return in
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
