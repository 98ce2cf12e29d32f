//go:build oracle

package oracle

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	v1alpha1 "github.com/nodeboot/nodeboot/api/nodegroup/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/author/generate"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/testing/nodeview"
)

// eksctlBootCase is one eksctl node group whose user data an instance boots.
type eksctlBootCase struct {
	name    string
	family  generate.Family
	managed bool // managedNodeGroups[0], else nodeGroups[0]
	// group is the eksctl node group (name and amiFamily are added).
	group map[string]any
	cidr  string // the cluster's service CIDR
	// want are nodeboot's node's view values (canonical JSON) the group's
	// settings must give; labels are node labels it must carry.
	want   map[string]string
	labels map[string]string
	// imdsLabels: eksctl's script (self-managed AL2) also labels the node
	// node-lifecycle and alpha.eksctl.io/instance-id from instance
	// metadata, which the node must carry with AEMM's values.
	imdsLabels bool
}

var eksctlBootStats = &stats{}

// TestEksctlUserDataBoots: the node agent boots what the real eksctl
// (v0.215.0's pkg/nodebootstrap, see TestGenerateAsEksctl) writes for a node
// group, fed to it as an instance gets it (a file source holding the user
// data; the instance's metadata from AEMM), and the node's kubelet carries
// the group's labels, taints, max pods, cluster DNS and kubelet config.
// AL2023 user data also goes through the real nodeadm, which must boot it
// and configure the same node (up to the deliberate differences).
//
// A managed group's launch template user data is what eksctl writes; EKS
// merges its own part into it before the instance gets it. EKS's merge
// cannot run here, so its part is `userdata generate --as eks` for the same
// group with eksctl's user data as the user's (TestProducerUserData and
// docs/userdata-generate.md describe that model of EKS).
func TestEksctlUserDataBoots(t *testing.T) {
	t.Parallel()
	bin := eksctlUserdata(t)
	nodeadmAgent(t)
	cl := startCloud(t, nodeadmCase{})
	for _, c := range eksctlBootCorpus() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ud := eksctlInstanceUserData(t, bin, c)
			n := bootEksctlUserData(t, &cl, c, ud)
			if n == nil {
				return
			}
			if c.imdsLabels {
				c.labels = withEntries(c.labels, map[string]string{
					"node-lifecycle":              aemmValue(t, cl.imds, "meta-data/instance-life-cycle"),
					"alpha.eksctl.io/instance-id": aemmValue(t, cl.imds, "meta-data/instance-id"),
				})
			}
			checkEksctlNode(t, c, n.view(t), ud)
		})
	}
	t.Cleanup(func() { t.Logf("eksctl user data on AL2023: %s", eksctlBootStats) })
}

// eksctlBootCorpus is node groups as eksctl users write them, each
// family's self-managed and managed form.
func eksctlBootCorpus() []eksctlBootCase {
	labels := map[string]any{"team": "payments", "example.com/tier": "gold"}
	taints := []any{map[string]any{"key": "dedicated", "value": "payments", "effect": "NoSchedule"}}
	wantLabels := map[string]string{"team": "payments", "example.com/tier": "gold"}
	taintsView := map[string]string{"kubelet.config.registerWithTaints.length": "1",
		"kubelet.config.registerWithTaints[0].key": `"dedicated"`, "kubelet.config.registerWithTaints[0].value": `"payments"`,
		"kubelet.config.registerWithTaints[0].effect": `"NoSchedule"`}
	full := func(extra map[string]any) map[string]any {
		g := map[string]any{"instanceType": "m5.large", "maxPodsPerNode": 58, "labels": labels, "taints": taints,
			"kubeletExtraConfig": map[string]any{"imageGCHighThresholdPercent": 80, "kubeReserved": map[string]any{"cpu": "150m"}}}
		for k, v := range extra {
			g[k] = v
		}
		return g
	}
	fullWant := withEntries(taintsView, map[string]string{
		"kubelet.config.maxPods":    "58",
		"kubelet.config.clusterDNS": `["10.100.0.10"]`, "kubelet.config.imageGCHighThresholdPercent": "80",
		"kubelet.config.kubeReserved.cpu": `"150m"`,
	})
	ipv6Want := withEntries(fullWant, map[string]string{"kubelet.config.clusterDNS": `["fd00:10:96::a"]`})
	mngLabels := map[string]string{"team": "payments", "eks.amazonaws.com/nodegroup": "ng-1"}
	pre := []any{"echo 'vm.max_map_count=262144' > /etc/sysctl.d/90-search.conf", "sysctl --system"}
	return []eksctlBootCase{
		{name: "al2023/cluster-only", family: generate.FamilyAL2023, group: map[string]any{},
			want: map[string]string{"kubelet.config.clusterDNS": `["10.100.0.10"]`}},
		{name: "al2023/everything", family: generate.FamilyAL2023, group: full(nil), want: fullWant, labels: wantLabels},
		{name: "al2023/pre-bootstrap-commands", family: generate.FamilyAL2023, group: full(map[string]any{"preBootstrapCommands": pre}),
			want: fullWant, labels: wantLabels},
		{name: "al2023/ipv6", family: generate.FamilyAL2023, group: full(nil), cidr: "fd00:10:96::/108", want: ipv6Want, labels: wantLabels},
		// A managed group with a custom AMI: EKS adds nothing to its user data.
		{name: "al2023/managed-override-bootstrap-command", family: generate.FamilyAL2023, managed: true, group: map[string]any{
			"ami": "ami-0123456789abcdef0", "instanceType": "m5.large",
			"overrideBootstrapCommand": "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      shutdownGracePeriod: 30s\n      maxPods: 20\n    flags:\n    - --node-labels=team=payments\n",
		}, want: map[string]string{"kubelet.config.maxPods": "20", "kubelet.config.shutdownGracePeriod": `"30s"`,
			"kubelet.config.clusterDNS": `["10.100.0.10"]`}, labels: map[string]string{"team": "payments", "alpha.eksctl.io/nodegroup-name": "ng-1"}},
		// EKS's own NodeConfig part sets maxPods after eksctl's: the real
		// nodeadm, too, runs the node with EKS's value (eksctl refused
		// maxPodsPerNode here before v0.199 for that reason).
		{name: "al2023/managed", family: generate.FamilyAL2023, managed: true,
			group: map[string]any{"instanceType": "m5.large", "maxPodsPerNode": 58, "labels": labels, "taints": taints, "preBootstrapCommands": pre},
			want:  taintsView, labels: mngLabels},
		{name: "al2/everything", family: generate.FamilyAL2, group: full(nil), want: fullWant,
			labels: withEntries(wantLabels, map[string]string{"alpha.eksctl.io/nodegroup-name": "ng-1"}), imdsLabels: true},
		{name: "al2/pre-bootstrap-commands", family: generate.FamilyAL2, group: full(map[string]any{"preBootstrapCommands": pre}),
			want: fullWant, labels: wantLabels, imdsLabels: true},
		{name: "al2/ipv6", family: generate.FamilyAL2, group: full(nil), cidr: "fd00:10:96::/108", want: ipv6Want, labels: wantLabels, imdsLabels: true},
		{name: "al2/managed", family: generate.FamilyAL2, managed: true,
			group: map[string]any{"instanceType": "m5.large", "maxPodsPerNode": 58, "labels": labels, "taints": taints, "preBootstrapCommands": pre},
			want:  withEntries(taintsView, map[string]string{"kubelet.config.maxPods": "58"}), labels: mngLabels},
		{name: "bottlerocket/everything", family: generate.FamilyBottlerocket, group: map[string]any{
			"instanceType": "m5.large", "maxPodsPerNode": 58, "labels": labels, "taints": taints,
			"bottlerocket": map[string]any{"settings": map[string]any{"kubernetes": map[string]any{
				"image-gc-high-threshold-percent": "80", "cluster-dns-ip": "10.100.0.10"}}},
		}, want: withEntries(taintsView, map[string]string{"kubelet.config.maxPods": "58",
			"kubelet.config.clusterDNS": `["10.100.0.10"]`, "kubelet.config.imageGCHighThresholdPercent": "80"}), labels: wantLabels},
	}
}

// withEntries is a copy of a with b's entries set.
func withEntries(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// eksctlInstanceUserData is the user data an instance of the group gets:
// eksctl's, with EKS's part merged for a managed group.
func eksctlInstanceUserData(t *testing.T, bin string, c eksctlBootCase) []byte {
	t.Helper()
	cidr := c.cidr
	if cidr == "" {
		cidr = "10.100.0.0/16"
	}
	ng := map[string]any{"name": "ng-1", "amiFamily": eksctlAMIFamily[c.family]}
	for k, v := range c.group {
		ng[k] = v
	}
	key := "nodeGroups"
	if c.managed {
		key = "managedNodeGroups"
	}
	config, err := yaml.Marshal(map[string]any{
		"apiVersion": "eksctl.io/v1alpha5", "kind": "ClusterConfig",
		"metadata": map[string]any{"name": "prod", "region": "us-west-2", "version": "1.32"},
		key:        []any{ng},
	})
	if err != nil {
		t.Fatal(err)
	}
	g := eksctlBootGroup(c, cidr)
	out := runEksctlConfig(t, bin, config, g)
	if c.family == generate.FamilyAL2 && !c.managed {
		return gzipped(t, out) // eksctl gzips the cloud-config (eksctl-userdata undoes it)
	}
	if _, customAMI := c.group["ami"]; !c.managed || customAMI {
		return out
	}
	user, problems := userdata.Split(diag.Source{URI: "launch-template"}, out)
	if problems.HasErrors() {
		t.Fatalf("eksctl's launch template user data: %v\n%s", problems, out)
	}
	merged, err := generate.Generate(generate.Input{Group: g, Family: c.family, Producer: generate.ProducerEKS, User: user})
	if err != nil {
		t.Fatalf("EKS's merge (generate --as eks): %v", err)
	}
	return merged.UserData
}

// eksctlBootGroup is the group as EKS knows it (for a managed group's
// merge) and the cluster eksctl is told about.
func eksctlBootGroup(c eksctlBootCase, cidr string) v1alpha1.NodeGroup {
	g := eksctlCorpus()[0].group
	g.Spec.Cluster.CIDR = cidr
	if it, ok := c.group["instanceType"].(string); ok {
		g.Spec.InstanceType = it
	}
	if l, ok := c.group["labels"].(map[string]any); ok {
		g.Spec.Labels = map[string]string{}
		for k, v := range l {
			g.Spec.Labels[k] = v.(string)
		}
	}
	if ts, ok := c.group["taints"].([]any); ok {
		for _, x := range ts {
			m := x.(map[string]any)
			g.Spec.Taints = append(g.Spec.Taints, v1alpha1.Taint{Key: m["key"].(string), Value: m["value"].(string), Effect: m["effect"].(string)})
		}
	}
	return g
}

// runEksctlConfig runs eksctl-userdata on an eksctl ClusterConfig.
func runEksctlConfig(t *testing.T, bin string, config []byte, g v1alpha1.NodeGroup) []byte {
	t.Helper()
	_, args := eksctlConfig(g, generate.FamilyAL2023)
	return runEksctl(t, bin, config, args)
}

// bootEksctlUserData boots ud on nodeboot's node (and, for AL2023, on
// nodeadm's, comparing the two) with init --skip run from a file source;
// it returns nodeboot's node, nil when it did not boot.
func bootEksctlUserData(t *testing.T, cl *cloud, c eksctlBootCase, ud []byte) *node {
	t.Helper()
	args := []string{"nodeadm", "init", "--skip", "run", "--config-source", "file:///user-data"}
	if c.family == generate.FamilyAL2023 {
		p := newUserDataPair(t, cl, eksctlBootStats, "eksctl", ud, "1.33.0")
		o := p.run(t, nil, args...)
		if o.nodeadm.code != 0 {
			t.Fatalf("the real nodeadm does not boot what eksctl writes:\n%s\n--- user data\n%s", o.nodeadm, ud)
		}
		if o.nodeboot.code != 0 {
			t.Errorf("nodeadm boots what eksctl writes, nodeboot does not:\n%s\n--- user data\n%s", o.nodeboot, ud)
			return nil
		}
		p.compare(t, c.name)
		return p.nodeboot
	}
	n := newNode(t, nodebootAgent(t), cl, "")
	if err := prepareUserDataNode(n, ud, "1.33.0"); err != nil {
		t.Fatal(err)
	}
	if r := n.run(t.Context(), nil, args...); r.code != 0 {
		t.Errorf("nodeboot does not boot what eksctl writes:\n%s\n--- user data\n%s", r, ud)
		return nil
	}
	return n
}

// checkEksctlNode requires the group's settings in the node's view.
func checkEksctlNode(t *testing.T, c eksctlBootCase, v nodeview.View, ud []byte) {
	t.Helper()
	for k, want := range c.want {
		if got, ok := v[k]; !ok || len(nodeview.Diff(nodeview.View{k: got}, nodeview.View{k: want})) > 0 {
			t.Errorf("%s: node has %q, the group says %q", k, got, want)
		}
	}
	var labels map[string]string
	_ = json.Unmarshal([]byte(v["kubelet.flag.node-labels"]), &labels)
	for k, want := range c.labels {
		if got, ok := labels[k]; !ok || got != want {
			t.Errorf("label %s: node has %q, the group says %q", k, got, want)
		}
	}
	if t.Failed() {
		var keys []string
		for k := range v {
			if strings.HasPrefix(k, "kubelet.") {
				keys = append(keys, k+"="+v[k])
			}
		}
		slices.Sort(keys)
		t.Logf("node's kubelet:\n%s\n--- user data\n%s", strings.Join(keys, "\n"), ud)
	}
}

// aemmValue is what AEMM at endpoint serves at path (IMDSv2, as eksctl's
// script asks): the value the real AL2 node would get.
func aemmValue(t *testing.T, endpoint, path string) string {
	t.Helper()
	do := func(method, url string, header http.Header) string {
		req, err := http.NewRequestWithContext(t.Context(), method, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header = header
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("AEMM %s %s: %s %v: %s", method, url, resp.Status, err, body)
		}
		return string(body)
	}
	base := strings.TrimSuffix(endpoint, "/") + "/latest/"
	token := do(http.MethodPut, base+"api/token", http.Header{"X-Aws-Ec2-Metadata-Token-Ttl-Seconds": {"600"}})
	return strings.TrimSpace(do(http.MethodGet, base+path, http.Header{"X-Aws-Ec2-Metadata-Token": {token}}))
}

// gzipped is data gzipped, as eksctl writes the AL2 cloud-config and an
// instance gets it from instance metadata.
func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
