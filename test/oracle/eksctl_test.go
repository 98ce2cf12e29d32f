//go:build oracle

package oracle

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	v1alpha1 "github.com/nodeboot/nodeboot/api/nodegroup/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/author/generate"
	"github.com/nodeboot/nodeboot/internal/author/nodegroup"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/fragment"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/merge"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// TestGenerateAsEksctl compares `userdata generate --as eksctl` with the
// user data the real eksctl writes: eksctl's own pkg/nodebootstrap, pinned
// in test/tools/eksctl and built by test/e2e/scripts/build-eksctl.sh into
// eksctl-userdata. For every node group of the corpus and every family it
// maps the NodeGroup to the eksctl ClusterConfig that describes the same
// group (eksctlConfig documents the mapping), has both write the user data
// and compares what the node ends up with, read by nodeboot's own readers:
// cluster fields, labels, taints, max pods, cluster DNS, the kubelet
// config, and the parts' kinds and order.
func TestGenerateAsEksctl(t *testing.T) {
	bin := eksctlUserdata(t)
	for _, c := range eksctlCorpus() {
		for _, f := range generate.Families() {
			t.Run(c.name+"/"+string(f), func(t *testing.T) {
				t.Parallel()
				ours, err := generate.Generate(generate.Input{Group: c.group, Family: f, Producer: generate.ProducerEksctl})
				if err != nil {
					t.Fatalf("nodeboot: %v", err)
				}
				theirs := runEksctlUserdata(t, bin, c.group, f)
				got, want := eksctlEffective(t, c, f, ours.UserData), eksctlEffective(t, c, f, theirs)
				for _, k := range slices.Sorted(maps.Keys(joinKeys(got, want))) {
					if got[k] != want[k] {
						t.Errorf("%s: nodeboot %q, eksctl %q", k, got[k], want[k])
					}
				}
				if t.Failed() {
					t.Logf("nodeboot:\n%s\neksctl:\n%s", ours.UserData, theirs)
				}
			})
		}
	}
}

// TestGenerateAsEksctlRefuses: a node group eksctl's own validation
// refuses gets no user data from nodeboot either.
func TestGenerateAsEksctlRefuses(t *testing.T) {
	bin := eksctlUserdata(t)
	refused := eksctlCorpus()[0].group
	refused.Spec.Kubelet.Config = map[string]json.RawMessage{"clusterDomain": json.RawMessage(`"corp.local"`)}
	for _, f := range []generate.Family{generate.FamilyAL2, generate.FamilyAL2023} {
		t.Run(string(f), func(t *testing.T) {
			config, args := eksctlConfig(refused, f)
			path := filepath.Join(t.TempDir(), "cluster.yaml")
			if err := os.WriteFile(path, config, 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := exec.CommandContext(t.Context(), bin, append(args, path)...).CombinedOutput()
			if err == nil || !strings.Contains(string(out), "eksctl refuses the node group") {
				t.Fatalf("eksctl: %v\n%s", err, out)
			}
			if _, err := generate.Generate(generate.Input{Group: refused, Family: f, Producer: generate.ProducerEksctl}); !errors.Is(err, generate.ErrRefused) {
				t.Errorf("nodeboot: got %v, want generate.ErrRefused (eksctl: %s)", err, out)
			}
		})
	}
}

// eksctlCase is one node group of the corpus.
type eksctlCase struct {
	name  string
	group v1alpha1.NodeGroup
	// lifecycle is what instance metadata says the instance is
	// (on-demand, spot); "" for what the group's capacity type says.
	lifecycle string
}

// eksctlCorpus is node groups as eksctl users write them: every field the
// NodeGroup spec shares with eksctl's ClusterConfig, alone and together.
func eksctlCorpus() []eksctlCase {
	base := func(name string, edit func(*v1alpha1.NodeGroupSpec)) eksctlCase {
		g := v1alpha1.NodeGroup{
			APIVersion: "nodeboot.io/v1alpha1", Kind: "NodeGroup",
			Metadata: v1alpha1.Metadata{Name: "ng-1"},
			Spec: v1alpha1.NodeGroupSpec{Cluster: v1alpha1.Cluster{
				Name:                 "prod",
				APIServerEndpoint:    "https://0123456789ABCDEF0123456789ABCDEF.gr7.us-west-2.eks.amazonaws.com",
				CertificateAuthority: []byte(eksctlTestCA),
				CIDR:                 "10.100.0.0/16",
			}},
		}
		edit(&g.Spec)
		return eksctlCase{name: name, group: g}
	}
	return []eksctlCase{
		base("cluster-only", func(*v1alpha1.NodeGroupSpec) {}),
		base("instance-type", func(s *v1alpha1.NodeGroupSpec) { s.InstanceType = "m5.large" }),
		base("instance-type-not-in-eni-table", func(s *v1alpha1.NodeGroupSpec) { s.InstanceType = "zz9.plural" }),
		base("max-pods", func(s *v1alpha1.NodeGroupSpec) { s.InstanceType = "m5.large"; s.MaxPods.Value = 58 }),
		base("max-pods-prefix-delegation", func(s *v1alpha1.NodeGroupSpec) {
			s.InstanceType = "m5.large"
			s.MaxPods.PrefixDelegation, s.MaxPods.Cap = true, true
		}),
		base("labels", func(s *v1alpha1.NodeGroupSpec) {
			s.Labels = map[string]string{"team": "payments", "example.com/tier": "gold", "empty": "", "node.kubernetes.io/role": "x"}
		}),
		base("own-label-overridden", func(s *v1alpha1.NodeGroupSpec) {
			s.Labels = map[string]string{"alpha.eksctl.io/nodegroup-name": "other", "team": "a"}
		}),
		base("taints", func(s *v1alpha1.NodeGroupSpec) {
			s.Taints = []v1alpha1.Taint{
				{Key: "dedicated", Value: "payments", Effect: "NoSchedule"},
				{Key: "example.com/gpu", Effect: "NoExecute"},
				{Key: "spot", Value: "true", Effect: "PreferNoSchedule"},
			}
		}),
		base("taints-same-key", func(s *v1alpha1.NodeGroupSpec) {
			s.Taints = []v1alpha1.Taint{
				{Key: "dedicated", Value: "payments", Effect: "NoSchedule"},
				{Key: "dedicated", Value: "payments", Effect: "NoExecute"},
			}
		}),
		base("kubelet-config", func(s *v1alpha1.NodeGroupSpec) {
			s.Kubelet.Config = map[string]json.RawMessage{
				"imageGCHighThresholdPercent": json.RawMessage(`80`),
				"shutdownGracePeriod":         json.RawMessage(`"30s"`),
				"evictionHard":                json.RawMessage(`{"memory.available":"200Mi","nodefs.available":"10%"}`),
				"kubeReserved":                json.RawMessage(`{"cpu":"100m","memory":"300Mi"}`),
				"cpuManagerPolicy":            json.RawMessage(`"static"`),
			}
		}),
		base("ipv6", func(s *v1alpha1.NodeGroupSpec) { s.Cluster.CIDR = "fd00:10:96::/108"; s.InstanceType = "m5.large" }),
		base("custom-service-cidr", func(s *v1alpha1.NodeGroupSpec) { s.Cluster.CIDR = "172.20.0.0/16" }),
		base("spot", func(s *v1alpha1.NodeGroupSpec) { s.CapacityType = "SPOT"; s.InstanceType = "c5.xlarge" }),
		// A mixed-instances group's on-demand group with a spot instance.
		{name: "spot-instance-of-on-demand-group", group: base("", func(*v1alpha1.NodeGroupSpec) {}).group, lifecycle: "spot"},
		base("everything", func(s *v1alpha1.NodeGroupSpec) {
			s.ImageID, s.InstanceType, s.MaxPods.Value = "ami-0123456789abcdef0", "m5.2xlarge", 29
			s.Labels = map[string]string{"team": "payments"}
			s.Taints = []v1alpha1.Taint{{Key: "dedicated", Value: "payments", Effect: "NoSchedule"}}
			s.Kubelet.Config = map[string]json.RawMessage{"imageGCHighThresholdPercent": json.RawMessage(`85`)}
		}),
	}
}

// eksctlConfig maps a NodeGroup to the eksctl ClusterConfig of the same
// self-managed node group (nodeGroups[0]) and the cluster status eksctl
// reads from EKS:
//
//   - spec.cluster.name → metadata.name; apiServerEndpoint, certificateAuthority
//     and cidr → status.endpoint, status.certificateAuthorityData and the
//     status's service CIDR (IPv4 or IPv6): eksctl always has them.
//   - metadata.name → nodeGroups[0].name; the family → amiFamily (AmazonLinux2,
//     AmazonLinux2023, Bottlerocket, WindowsServer2022FullContainer), Kubernetes 1.32.
//   - spec.instanceType → instanceType; spec.labels → labels; spec.taints → taints;
//     spec.maxPods.value → maxPodsPerNode. The max-pods formula fields have no
//     eksctl field (eksctl leaves max pods to the node without maxPodsPerNode).
//   - spec.kubelet.config → kubeletExtraConfig on Amazon Linux; on Bottlerocket
//     (where eksctl refuses kubeletExtraConfig) → bottlerocket.settings.kubernetes,
//     each field under its Bottlerocket setting name (bottlerocketSettingNames),
//     numbers as strings (bottlerocketValue);
//     on Windows eksctl refuses it and has no other place, so it is not mapped.
//   - spec.imageId, spec.capacityType, spec.launchTemplate and spec.nodeRole
//     change nothing eksctl writes in user data (the AL2 script reads the spot
//     lifecycle from instance metadata at boot), so they are not mapped.
func eksctlConfig(g v1alpha1.NodeGroup, f generate.Family) (config []byte, args []string) {
	s := g.Spec
	ng := map[string]any{"name": g.Metadata.Name, "amiFamily": eksctlAMIFamily[f]}
	if s.InstanceType != "" {
		ng["instanceType"] = s.InstanceType
	}
	if len(s.Labels) > 0 {
		ng["labels"] = s.Labels
	}
	if len(s.Taints) > 0 {
		ng["taints"] = s.Taints
	}
	if s.MaxPods.Value > 0 {
		ng["maxPodsPerNode"] = s.MaxPods.Value
	}
	if len(s.Kubelet.Config) > 0 {
		switch f {
		case generate.FamilyAL2, generate.FamilyAL2023:
			ng["kubeletExtraConfig"] = s.Kubelet.Config
		case generate.FamilyBottlerocket:
			k8s := map[string]any{}
			for k, v := range s.Kubelet.Config {
				k8s[bottlerocketSettingNames[k]] = bottlerocketValue(v)
			}
			ng["bottlerocket"] = map[string]any{"settings": map[string]any{"kubernetes": k8s}}
		}
	}
	cfg := map[string]any{
		"apiVersion": "eksctl.io/v1alpha5", "kind": "ClusterConfig",
		"metadata":   map[string]any{"name": s.Cluster.Name, "region": "us-west-2", "version": "1.32"},
		"nodeGroups": []any{ng},
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		panic(err)
	}
	return out, []string{
		"-endpoint", s.Cluster.APIServerEndpoint,
		"-ca", base64.StdEncoding.EncodeToString(s.Cluster.CertificateAuthority),
		"-service-cidr", s.Cluster.CIDR,
	}
}

var eksctlAMIFamily = map[generate.Family]string{
	generate.FamilyAL2: "AmazonLinux2", generate.FamilyAL2023: "AmazonLinux2023",
	generate.FamilyBottlerocket: "Bottlerocket", generate.FamilyWindows: "WindowsServer2022FullContainer",
}

// bottlerocketSettingNames are the Bottlerocket settings.kubernetes names
// of the corpus's kubelet config fields, from Bottlerocket's settings
// reference (an eksctl user writes these under bottlerocket.settings).
var bottlerocketSettingNames = map[string]string{
	"imageGCHighThresholdPercent": "image-gc-high-threshold-percent",
	"shutdownGracePeriod":         "shutdown-grace-period",
	"evictionHard":                "eviction-hard",
	"kubeReserved":                "kube-reserved",
	"cpuManagerPolicy":            "cpu-manager-policy",
}

// bottlerocketValue is a kubelet config value as an eksctl user writes it
// in bottlerocket.settings: numbers as strings, since eksctl reads the
// settings as JSON and writes every number as a TOML float (80.0), which
// Bottlerocket refuses for its integer settings (it takes integers or
// strings).
func bottlerocketValue(v json.RawMessage) any {
	var n json.Number
	if json.Unmarshal(v, &n) == nil {
		return n.String()
	}
	return v
}

// eksctlUserdata finds the built oracle; missing (or jq missing), it
// skips t (fails it under NODEBOOT_REQUIRE_E2E).
func eksctlUserdata(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("NODEBOOT_EKSCTL_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", ".cache", "eksctl")
	}
	bin, err := filepath.Abs(filepath.Join(dir, "eksctl-userdata"))
	if err == nil {
		_, err = os.Stat(bin)
	}
	if err != nil {
		err = fmt.Errorf("eksctl-userdata not built (bash test/e2e/scripts/build-eksctl.sh): %w", err)
	} else if _, jqErr := exec.LookPath("jq"); jqErr != nil {
		err = fmt.Errorf("eksctl's AL2 script needs jq (test/e2e/scripts/install-deps.sh): %w", jqErr)
	}
	if err != nil {
		if os.Getenv("NODEBOOT_REQUIRE_E2E") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return bin
}

// runEksctlUserdata returns the user data eksctl writes for g on family
// f, its gzip and base64 undone.
func runEksctlUserdata(t *testing.T, bin string, g v1alpha1.NodeGroup, f generate.Family) []byte {
	t.Helper()
	config, args := eksctlConfig(g, f)
	return runEksctl(t, bin, config, args)
}

// runEksctl runs eksctl-userdata with args on the ClusterConfig config and
// returns the user data it prints.
func runEksctl(t *testing.T, bin string, config []byte, args []string) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(path, config, 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(t.Context(), bin, append(args, path)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("eksctl-userdata: %v\n%s\nconfig:\n%s", err, stderr.Bytes(), config)
	}
	return out
}

// eksctlEffective is what a node of family f ends up with from user
// data, flattened to keys: read by nodeboot's readers (AL2023 MIME,
// Bottlerocket TOML), by running the AL2 cloud-config's scripts against a
// recording bootstrap.sh, or from the Windows bootstrap call.
func eksctlEffective(t *testing.T, c eksctlCase, f generate.Family, data []byte) map[string]string {
	t.Helper()
	switch f {
	case generate.FamilyAL2:
		lifecycle := c.lifecycle
		if lifecycle == "" {
			lifecycle = strings.ToLower(strings.ReplaceAll(nodegroup.CapacityType(c.group.Spec), "_", "-"))
		}
		return al2Effective(t, data, lifecycle)
	case generate.FamilyWindows:
		return windowsEffective(t, data)
	}
	docs, problems := userdata.Split(diag.Source{URI: "user-data"}, data)
	var specs []hub.Spec
	var kinds []string
	for _, d := range docs {
		if len(kinds) == 0 || kinds[len(kinds)-1] != string(d.Format) {
			kinds = append(kinds, string(d.Format)) // eksctl writes max pods in a NodeConfig of its own
		}
		frags, p := fragment.Decode(d)
		problems = append(problems, p...)
		for _, fr := range frags {
			specs = append(specs, fr.Spec)
		}
	}
	if problems.HasErrors() {
		t.Fatalf("nodeboot cannot read it: %v\n%s", problems, data)
	}
	spec, err := merge.Specs(specs...)
	if err != nil {
		t.Fatal(err)
	}
	out := flattenSpec(spec)
	out["parts"] = strings.Join(kinds, ",")
	return out
}

// flattenSpec lists what a node gets from spec: cluster fields, kubelet
// config fields (as canonical JSON), each label, the taint set, other flags.
func flattenSpec(s hub.Spec) map[string]string {
	out := map[string]string{
		"cluster.name": s.Cluster.Name, "cluster.apiServerEndpoint": s.Cluster.APIServerEndpoint,
		"cluster.certificateAuthority": string(s.Cluster.CertificateAuthority), "cluster.cidr": s.Cluster.CIDR,
	}
	for k, v := range s.Kubelet.Config {
		out["kubelet.config."+k] = canonicalJSON(v)
	}
	var other []string
	for _, fl := range s.Kubelet.Flags {
		name, value, _ := strings.Cut(fl, "=")
		switch name {
		case "--node-labels":
			for _, kv := range strings.Split(value, ",") {
				k, v, _ := strings.Cut(kv, "=")
				out["labels["+k+"]"] = v
			}
		case "--register-with-taints":
			out["taints"] = normalTaints(value)
		case "--max-pods":
			out["kubelet.config.maxPods"] = value
		default:
			other = append(other, fl)
		}
	}
	if len(other) > 0 {
		out["kubelet.flags"] = strings.Join(other, " ")
	}
	for k, v := range out {
		if v == "" && !strings.HasPrefix(k, "labels[") {
			delete(out, k)
		}
	}
	return out
}

// normalTaints sorts a --register-with-taints value and writes key:Effect
// as key=:Effect (the kubelet reads both as an empty value).
func normalTaints(v string) string {
	ts := strings.Split(v, ",")
	for i, t := range ts {
		if kv, effect, ok := strings.Cut(t, ":"); ok && !strings.Contains(kv, "=") {
			ts[i] = kv + "=:" + effect
		}
	}
	slices.Sort(ts)
	return strings.Join(ts, ",")
}

func canonicalJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func joinKeys(a, b map[string]string) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

// windowsCall matches the call of Start-EKSBootstrap.ps1 and its
// double-quoted parameters.
var (
	windowsCall  = regexp.MustCompile(`(?m)^& \$EKSBootstrapScriptFile (.*) 3>&1 4>&1 5>&1 6>&1$`)
	windowsParam = regexp.MustCompile(`-(\w+) "([^"]*)"`)
)

// windowsEffective reads the parameters of the bootstrap call; the kubelet
// flags in -KubeletExtraArgs as flattenSpec reads flags.
func windowsEffective(t *testing.T, data []byte) map[string]string {
	t.Helper()
	m := windowsCall.FindSubmatch(data)
	if m == nil {
		t.Fatalf("no Start-EKSBootstrap.ps1 call:\n%s", data)
	}
	out := map[string]string{}
	var flags []string
	for _, p := range windowsParam.FindAllStringSubmatch(string(m[1]), -1) {
		if p[1] == "KubeletExtraArgs" {
			flags = strings.Fields(p[2])
			continue
		}
		out["-"+p[1]] = p[2]
	}
	maps.Copy(out, flattenSpec(hub.Spec{Kubelet: hub.Kubelet{Flags: flags}}))
	out["before the call"] = string(data[:bytes.Index(data, m[0])])
	out["after the call"] = string(data[bytes.Index(data, m[0])+len(m[0]):])
	return out
}

// cloudConfig is the part of a #cloud-config the AL2 output uses.
type cloudConfig struct {
	RunCmd     []any `json:"runcmd"`
	WriteFiles []struct {
		Path        string `json:"path"`
		Content     string `json:"content"`
		Permissions string `json:"permissions"`
	} `json:"write_files"`
}

// al2Effective runs the AL2 cloud-config as cloud-init would on the AL2
// image, under a scratch root: its files written, its runcmd run in order
// with a bootstrap.sh that records its arguments and writes a kubelet
// config, instance metadata answered by a stub. The effective settings are
// the recorded bootstrap.sh call as nodeboot reads it, with the kubelet
// config the scripts leave (eksctl merges kubeletExtraConfig into it).
func al2Effective(t *testing.T, data []byte, lifecycle string) map[string]string {
	t.Helper()
	body, ok := bytes.CutPrefix(data, []byte("#cloud-config\n"))
	if !ok {
		t.Fatalf("not a cloud-config:\n%s", data)
	}
	var cc cloudConfig
	if err := yaml.Unmarshal(body, &cc); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	chroot := strings.NewReplacer("/etc/eks", root+"/etc/eks", "/etc/kubernetes", root+"/etc/kubernetes",
		"/var/lib/cloud", root+"/var/lib/cloud", "/tmp/", root+"/tmp/")
	for _, dir := range []string{"bin", "tmp", "etc/eks", "etc/kubernetes/kubelet"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeStubs(t, root)
	out := map[string]string{}
	for _, f := range cc.WriteFiles {
		p := chroot.Replace(f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(chroot.Replace(f.Content)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cc.RunCmd {
		runCloudInitCommand(t, root, chroot, c, lifecycle)
	}
	args, err := os.ReadFile(filepath.Join(root, "bootstrap.args"))
	if err != nil {
		t.Fatalf("bootstrap.sh was not called: %v", err)
	}
	maps.Copy(out, bootstrapCallSpec(t, args))
	kc, err := os.ReadFile(filepath.Join(root, "etc/kubernetes/kubelet/kubelet-config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var config map[string]json.RawMessage
	if err := json.Unmarshal(kc, &config); err != nil {
		t.Fatal(err)
	}
	for k, v := range config {
		if _, byFlag := out["kubelet.config."+k]; !byFlag {
			out["kubelet.config."+k] = canonicalJSON(v)
		}
	}
	return out
}

// writeStubs puts on the scratch root's bin: bootstrap.sh (records its
// arguments NUL-separated, writes a kubelet config as the AL2 image's
// does), curl and imds answering instance metadata, systemctl doing
// nothing.
func writeStubs(t *testing.T, root string) {
	t.Helper()
	stubs := map[string]string{
		"etc/eks/bootstrap.sh": `printf '%s\0' "$@" > "` + root + `/bootstrap.args"
echo '{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1"}' > "` + root + `/etc/kubernetes/kubelet/kubelet-config.json"`,
		"bin/curl":      `case "$*" in *instance-id*) echo i-0123456789abcdef0;; *instance-life-cycle*) echo ${LIFECYCLE:-on-demand};; *) echo token;; esac`,
		"bin/imds":      `case "$*" in *instance-id*) echo i-0123456789abcdef0;; *instance-life-cycle*) echo ${LIFECYCLE:-on-demand};; esac`,
		"bin/systemctl": `true`,
	}
	for p, s := range stubs {
		if err := os.WriteFile(filepath.Join(root, p), []byte("#!/bin/bash\n"+s+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// runCloudInitCommand runs one runcmd entry as cloud-init does: a string
// with sh -c, a list as the command and its arguments.
func runCloudInitCommand(t *testing.T, root string, chroot *strings.Replacer, c any, lifecycle string) {
	t.Helper()
	var argv []string
	switch c := c.(type) {
	case string:
		argv = []string{"sh", "-c", chroot.Replace(c)}
	case []any:
		for _, a := range c {
			argv = append(argv, chroot.Replace(fmt.Sprint(a)))
		}
	default:
		t.Fatalf("runcmd entry %v", c)
	}
	env := []string{"PATH=" + root + "/bin:/usr/bin:/bin", "HOME=" + root, "LIFECYCLE=" + lifecycle}
	if out, err := runWrittenScript(t.Context(), argv, env); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatal(err)
		}
		t.Fatalf("runcmd %q: %v\n%s", argv, err, out)
	}
}

// runWrittenScript runs argv, whose program may be a script this process
// has just written. A child that a parallel test forked while the script
// was open for writing holds it open until that child execs, and exec
// then fails with ETXTBSY (golang/go#22315); like the go command, it
// tries again.
func runWrittenScript(ctx context.Context, argv, env []string) ([]byte, error) {
	for attempt := 1; ; attempt++ {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if !errors.Is(err, syscall.ETXTBSY) || attempt == 20 {
			return out, err
		}
		time.Sleep(time.Duration(attempt) * 5 * time.Millisecond)
	}
}

// bootstrapCallSpec reads a recorded bootstrap.sh call with nodeboot's
// bootstrap.sh reader.
func bootstrapCallSpec(t *testing.T, args []byte) map[string]string {
	t.Helper()
	var line strings.Builder
	line.WriteString("#!/bin/bash\n/etc/eks/bootstrap.sh")
	for _, a := range strings.Split(strings.TrimSuffix(string(args), "\x00"), "\x00") {
		line.WriteString(" '" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	line.WriteString("\n")
	doc := userdata.Document{Source: diag.Source{URI: "bootstrap.sh call"}, Format: userdata.FormatShell, Data: []byte(line.String())}
	frags, problems := fragment.Decode(doc)
	if problems.HasErrors() || len(frags) != 1 {
		t.Fatalf("nodeboot cannot read the bootstrap.sh call %s: %v", line.String(), problems)
	}
	out := flattenSpec(frags[0].Spec)
	out["bootstrap.sh args"] = strings.Join(bootstrapOptionNames(args), " ")
	return out
}

// bootstrapOptionNames lists the options of a recorded call (the cluster
// name, then option and value pairs), sorted.
func bootstrapOptionNames(args []byte) []string {
	var names []string
	all := strings.Split(strings.TrimSuffix(string(args), "\x00"), "\x00")
	for i := 1; i < len(all); i += 2 {
		names = append(names, all[i])
	}
	slices.Sort(names)
	return names
}

// eksctlTestCA is a CA bundle's PEM (its bytes are what both write, base64).
const eksctlTestCA = "-----BEGIN CERTIFICATE-----\nMIIBgTCCASegAwIBAgIUCVMhYT22DEv58ggVvhDhJy9SU5gwCgYIKoZIzj0EAwIw\nFTETMBEGA1UEAwwKa3ViZXJuZXRlczAgFw0yNjExMjIwODI4MjlaGA8yMTI2MTAy\nOTA4MjgyOVowFTETMBEGA1UEAwwKa3ViZXJuZXRlczBZMBMGByqGSM49AgEGCCqG\nSM49AwEHA0IABG2UWvjVU0QwlWrIT6NywZagYLRCnMqoDufW4hViKsGpe/J2PSD+\n7EJk6uI1475Bow8JZO8cID3lbzFwz8HGNZWjUzBRMB0GA1UdDgQWBBSUuXULeo7r\n0+uT4++WxWQPXteYEDAfBgNVHSMEGDAWgBSUuXULeo7r0+uT4++WxWQPXteYEDAP\nBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gAMEUCIQCcDR3Q7QEwsWTpmQVK\nlBSa5HGnytKyX9WsPdx5VtZwWgIgOzipTJa8zWsR1OZPJDnv1g3HQBI6zg5RVH41\nYj3vf3g=\n-----END CERTIFICATE-----\n"
