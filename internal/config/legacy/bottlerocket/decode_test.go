package bottlerocket

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// readCA returns testdata/ca.pem, a self-signed CA certificate that passes
// the hub's CA check.
func readCA(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/ca.pem")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func decodeString(t *testing.T, text string, line int) (Result, diag.List) {
	t.Helper()
	return Decode(userdata.Document{Source: diag.Source{URI: "imds://user-data", Part: 2, Line: line}, Data: []byte(text)})
}

// mustDecode decodes and fails on any error.
func mustDecode(t *testing.T, text string) Result {
	t.Helper()
	res, problems := decodeString(t, text, 1)
	if problems.HasErrors() {
		t.Fatalf("unexpected errors:\n%v", problems.Err())
	}
	return res
}

func rawJSON(s string) json.RawMessage { return json.RawMessage(s) }

func TestDecodeForms(t *testing.T) {
	want := hub.Spec{
		Cluster: hub.Cluster{Name: "prod", APIServerEndpoint: "https://a.example.com"},
		Kubelet: hub.Kubelet{
			Config: map[string]json.RawMessage{"maxPods": rawJSON(`29`), "evictionHard": rawJSON(`{"memory.available":"100Mi"}`)},
			Flags: []string{
				"--node-labels=eks.amazonaws.com/nodegroup=core,team=a",
				"--register-with-taints=dedicated=gpu:NoSchedule",
			},
		},
	}
	tests := []struct {
		name string
		text string
	}{
		{name: "tables", text: `
[settings.kubernetes]
cluster-name = "prod"
api-server = "https://a.example.com"
max-pods = 29
[settings.kubernetes.node-labels]
"eks.amazonaws.com/nodegroup" = "core"
team = "a"
[settings.kubernetes.node-taints]
dedicated = "gpu:NoSchedule"
[settings.kubernetes.eviction-hard]
"memory.available" = "100Mi"
`},
		{name: "dotted keys and literal strings", text: `
settings.kubernetes.node-taints.dedicated = ['gpu:NoSchedule']
settings.kubernetes.cluster-name = 'prod'
settings.kubernetes.node-labels.'eks.amazonaws.com/nodegroup' = 'core'
settings.kubernetes.api-server = 'https://a.example.com'
settings.kubernetes.max-pods = 29
settings.kubernetes.eviction-hard."memory.available" = '100Mi'
settings.kubernetes.node-labels.team = 'a'
`},
		{name: "inline tables", text: `
settings = { kubernetes = { cluster-name = "prod", api-server = "https://a.example.com", max-pods = 29, node-labels = { "eks.amazonaws.com/nodegroup" = "core", team = "a" }, node-taints = { dedicated = ["gpu:NoSchedule"] }, eviction-hard = { "memory.available" = "100Mi" } } }
`},
		{name: "quoted keys and a settings header", text: `
[settings]
"kubernetes"."cluster-name" = "prod"
kubernetes.api-server = "https://a.example.com"
kubernetes."max-pods" = 29
kubernetes.node-labels = { "eks.amazonaws.com/nodegroup" = "core", "team" = "a" }
kubernetes.node-taints."dedicated" = "gpu:NoSchedule"
kubernetes.eviction-hard = { "memory.available" = "100Mi" }
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := mustDecode(t, tc.text)
			got, _ := json.Marshal(res.Spec)
			wantJSON, _ := json.Marshal(want)
			if string(got) != string(wantJSON) {
				t.Fatalf("spec:\n got %s\nwant %s", got, wantJSON)
			}
		})
	}
}

func TestDecodeValueForms(t *testing.T) {
	tests := []struct {
		name, setting string
		key, want     string
	}{
		{name: "one DNS address", setting: `cluster-dns-ip = "10.100.0.10"`, key: "clusterDNS", want: `["10.100.0.10"]`},
		{name: "DNS address list", setting: `cluster-dns-ip = ["10.100.0.10", "10.100.0.11"]`, key: "clusterDNS", want: `["10.100.0.10","10.100.0.11"]`},
		{name: "GC percent number", setting: `image-gc-high-threshold-percent = 85`, key: "imageGCHighThresholdPercent", want: `85`},
		{name: "GC percent string", setting: `image-gc-high-threshold-percent = "85"`, key: "imageGCHighThresholdPercent", want: `85`},
		{name: "CPU policy capitalised", setting: `cpu-manager-policy = "Static"`, key: "cpuManagerPolicy", want: `"static"`},
		{name: "CPU policy options", setting: `cpu-manager-policy-options = ["full-pcpus-only"]`, key: "cpuManagerPolicyOptions", want: `{"full-pcpus-only":"true"}`},
		{name: "topology options", setting: `topology-manager-policy-options = { prefer-closest-numa-nodes = true, max-allowable-numa-nodes = 8 }`,
			key: "topologyManagerPolicyOptions", want: `{"max-allowable-numa-nodes":"8","prefer-closest-numa-nodes":"true"}`},
		{name: "reserved memory", setting: "memory-manager-reserved-memory.1 = { enabled = true, memory = \"1Gi\" }\nmemory-manager-reserved-memory.0 = { enabled = true, memory = \"2Gi\", hugepages-2Mi = \"64Mi\" }\nmemory-manager-reserved-memory.2 = { enabled = false, memory = \"3Gi\" }",
			key: "reservedMemory", want: `[{"numaNode":0,"limits":{"hugepages-2Mi":"64Mi","memory":"2Gi"}},{"numaNode":1,"limits":{"memory":"1Gi"}}]`},
		{name: "swap behaviour", setting: `memory-swap-behavior = "limitedswap"`, key: "memorySwap", want: `{"swapBehavior":"LimitedSwap"}`},
		{name: "ids per pod", setting: `ids-per-pod = 131072`, key: "userNamespaces", want: `{"idsPerPod":131072}`},
		{name: "kube reserved", setting: `kube-reserved = { cpu = "90m", memory = "893Mi", pid = "1000" }`, key: "kubeReserved", want: `{"cpu":"90m","memory":"893Mi","pid":"1000"}`},
		{name: "throttling factor integer", setting: `memory-throttling-factor = 1`, key: "memoryThrottlingFactor", want: `1`},
		{name: "extra config", setting: `kubelet-extra-config = "` + base64.StdEncoding.EncodeToString([]byte("tlsMinVersion: VersionTLS13\n")) + `"`,
			key: "tlsMinVersion", want: `"VersionTLS13"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := mustDecode(t, "[settings.kubernetes]\ncluster-name = \"a\"\n"+tc.setting+"\n")
			if got := string(res.Spec.Kubelet.Config[tc.key]); got != tc.want {
				t.Fatalf("config[%s] = %s, want %s", tc.key, got, tc.want)
			}
		})
	}
}

func TestDecodeSpecialSettings(t *testing.T) {
	testCA := readCA(t)
	ca := base64.StdEncoding.EncodeToString([]byte(testCA))
	tests := []struct {
		name  string
		extra string
		check func(t *testing.T, spec hub.Spec)
	}{
		{name: "tls with token", extra: "authentication-mode = \"tls\"\nbootstrap-token = \"abcdef.0123456789abcdef\"\ncluster-certificate = \"" + ca + "\"",
			check: func(t *testing.T, s hub.Spec) {
				if s.Identity.Mode != hub.IdentityBootstrapToken || s.Identity.BootstrapToken.Token != "abcdef.0123456789abcdef" || string(s.Cluster.CertificateAuthority) != testCA {
					t.Fatalf("identity %+v, CA %q", s.Identity, s.Cluster.CertificateAuthority)
				}
			}},
		{name: "aws mode is the default identity", extra: `authentication-mode = "aws"`,
			check: func(t *testing.T, s hub.Spec) {
				if !reflect.ValueOf(s.Identity).IsZero() {
					t.Fatalf("identity %+v, want zero", s.Identity)
				}
			}},
		{name: "instance id names", extra: `hostname-override-source = "instance-id"`,
			check: func(t *testing.T, s hub.Spec) {
				if v, ok := s.FeatureGates[FeatureInstanceIDNodeName]; !ok || !v {
					t.Fatalf("feature gates %v", s.FeatureGates)
				}
			}},
		{name: "flags in fixed order", extra: "log-level = 4\nnode-ip = \"10.0.0.7\"\nhostname-override = \"node-a\"\nnode-labels.a = \"b\"",
			check: func(t *testing.T, s hub.Spec) {
				want := []string{"--node-labels=a=b", "--node-ip=10.0.0.7", "--hostname-override=node-a", "--v=4"}
				if !reflect.DeepEqual(s.Kubelet.Flags, want) {
					t.Fatalf("flags %q, want %q", s.Kubelet.Flags, want)
				}
			}},
		{name: "empty taint value", extra: `node-taints.maintenance = [":NoExecute", "soon:NoSchedule"]`,
			check: func(t *testing.T, s hub.Spec) {
				want := []string{"--register-with-taints=maintenance:NoExecute,maintenance=soon:NoSchedule"}
				if !reflect.DeepEqual(s.Kubelet.Flags, want) {
					t.Fatalf("flags %q, want %q", s.Kubelet.Flags, want)
				}
			}},
		{name: "IPv6 cluster DNS", extra: `cluster-dns-ip = "fd30:1c53:5f8a::a"`,
			check: func(t *testing.T, s hub.Spec) {
				if s.Cluster.IPFamily != "ipv6" {
					t.Fatalf("ipFamily %q", s.Cluster.IPFamily)
				}
			}},
		{name: "cloud provider external", extra: `cloud-provider = "external"`,
			check: func(t *testing.T, s hub.Spec) {
				if len(s.Kubelet.Flags) != 0 || len(s.Kubelet.Config) != 0 {
					t.Fatalf("kubelet %+v, want nothing", s.Kubelet)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := mustDecode(t, "[settings.kubernetes]\ncluster-name = \"a\"\n"+tc.extra+"\n")
			tc.check(t, res.Spec)
		})
	}
}

func TestDecodeNetworkAndDNS(t *testing.T) {
	res := mustDecode(t, `
[settings.kubernetes]
cluster-name = "a"
[settings.network]
https-proxy = "http://proxy:3128"
no-proxy = ["localhost", ".internal"]
hostname = "node-a"
[settings.dns]
name-servers = ["10.0.0.2", "fd00::2"]
search-list = ["corp.internal"]
`)
	env := res.Spec.Instance.Environment[EnvironmentDefault]
	if env[EnvHTTPSProxy] != "http://proxy:3128" || env[EnvNoProxy] != "localhost,.internal" || len(env) != 2 {
		t.Errorf("environment %v", res.Spec.Instance.Environment)
	}
	if n := res.Spec.Instance.Network; !reflect.DeepEqual(n.Nameservers, []string{"10.0.0.2", "fd00::2"}) || !reflect.DeepEqual(n.Domains, []string{"corp.internal"}) {
		t.Errorf("network %+v", n)
	}
	if !reflect.DeepEqual(res.Ignored, []string{"settings.network.hostname"}) {
		t.Errorf("ignored %q", res.Ignored)
	}
}

// TestDecodeIgnored checks one warning per ignored leaf key, on the key's
// own line and column, and the Ignored list in document order.
func TestDecodeIgnored(t *testing.T) {
	text := `settings.kernel.sysctl."vm.max_map_count" = "262144"
[settings.kubernetes]
cluster-name = "a"
static-pods.web = { enabled = true, manifest = "e30=" }
[settings.host-containers.admin]
enabled = true
superpowered = true
[settings.host-containers.control]
enabled = false
[settings.ntp]
time-servers = ["169.254.169.123"]
[settings.bootstrap-containers.setup]
[settings.pki]
`
	res, problems := decodeString(t, text, 10)
	if problems.HasErrors() {
		t.Fatalf("errors: %v", problems.Err())
	}
	type warning struct {
		field        string
		line, column int
	}
	var got []warning
	for _, p := range problems {
		if !strings.HasPrefix(p.Message, "not applied: ") {
			t.Errorf("warning %q does not say it is not applied", p)
		}
		got = append(got, warning{p.Field, p.Position.Line, p.Position.Column})
	}
	want := []warning{
		{`settings.kernel.sysctl."vm.max_map_count"`, 10, 24},
		{"settings.kubernetes.static-pods.web.enabled", 13, 21},
		{"settings.kubernetes.static-pods.web.manifest", 13, 37},
		{"settings.host-containers.admin.enabled", 15, 1},
		{"settings.host-containers.admin.superpowered", 16, 1},
		{"settings.host-containers.control.enabled", 18, 1},
		{"settings.ntp.time-servers", 20, 1},
		{"settings.bootstrap-containers.setup", 21, 32},
		{"settings.pki", 22, 11},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("warnings\n got %v\nwant %v", got, want)
	}
	var wantIgnored []string
	for _, w := range want {
		wantIgnored = append(wantIgnored, w.field)
	}
	if !reflect.DeepEqual(res.Ignored, wantIgnored) {
		t.Fatalf("ignored %q, want %q", res.Ignored, wantIgnored)
	}
}

// TestDecodePositions checks hub paths map to absolute lines.
func TestDecodePositions(t *testing.T) {
	text := "# user data\n[settings.kubernetes]\ncluster-name = \"a\"\nmax-pods = 29\n\n[settings.kubernetes.eviction-hard]\n\"memory.available\" = \"100Mi\"\n\n[settings.kubernetes.node-labels]\nteam = \"a\"\n"
	res, problems := decodeString(t, text, 5)
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	want := map[string]int{
		"spec.cluster.name":                                   7,
		"spec.kubelet.config[maxPods]":                        8,
		"spec.kubelet.config[evictionHard]":                   10,
		"spec.kubelet.config[evictionHard][memory.available]": 11,
		"spec.kubelet.flags[0]":                               13,
	}
	for path, line := range want {
		if got := res.Positions[path].Line; got != line {
			t.Errorf("%s on line %d, want %d", path, got, line)
		}
	}
	if len(res.Positions) != len(want) {
		t.Errorf("positions %v, want %d entries", res.Positions, len(want))
	}
}

// TestDecodeReportsEverything checks that one pass reports every problem,
// in line order, with the source's part.
func TestDecodeReportsEverything(t *testing.T) {
	text := `[settings.kubernetes]
max-podz = 3
node-labels.team = "a b"
image-gc-high-threshold-percent = 101
[settings.kubernetes.eviction-hard]
"memory.free" = "1Gi"
`
	_, problems := decodeString(t, text, 1)
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	want := []string{
		`error: imds://user-data part 2 line 1:11: settings.kubernetes: cluster-name is required`,
		`error: imds://user-data part 2 line 2:1: settings.kubernetes.max-podz: unknown setting "max-podz"; did you mean "max-pods"?`,
		`error: imds://user-data part 2 line 3:13: settings.kubernetes.node-labels.team: label value "a b" is invalid`,
		`error: imds://user-data part 2 line 4:1: settings.kubernetes.image-gc-high-threshold-percent: 101 is out of range: must be between 0 and 100`,
		`error: imds://user-data part 2 line 6:1: settings.kubernetes.eviction-hard."memory.free": unknown eviction signal "memory.free"`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d:\n got %s\nwant %s…", i, got[i], want[i])
		}
	}
}

// TestDecodeBootstrapTokenAlone checks that a token without a CA is left
// to the merged-config check (a drop-in may add the CA) and never echoed.
func TestDecodeBootstrapTokenAlone(t *testing.T) {
	res, problems := decodeString(t, "[settings.kubernetes]\ncluster-name = \"a\"\nbootstrap-token = \"abcdef.0123456789abcdef\"\n", 1)
	if len(problems) != 0 {
		t.Fatalf("problems %v", problems)
	}
	if res.Spec.Identity.Mode != hub.IdentityBootstrapToken || res.Positions["spec.identity.bootstrapToken.caCertHashes"].Line != 0 ||
		res.Positions.Lookup("spec.identity.bootstrapToken.caCertHashes").Line != 3 {
		t.Fatalf("identity %+v positions %v", res.Spec.Identity, res.Positions)
	}
	_, problems = decodeString(t, "[settings.kubernetes]\ncluster-name = \"a\"\nbootstrap-token = \"abcdef.0123456789ABCDEF\"\n", 1)
	if len(problems) != 1 || problems[0].Position.Line != 3 || strings.Contains(problems[0].String(), "0123456789ABCDEF") {
		t.Fatalf("problems %v", problems)
	}
}

func TestDecodeTokenWithAWSModeIsIgnored(t *testing.T) {
	res, problems := decodeString(t, "[settings.kubernetes]\ncluster-name = \"a\"\nauthentication-mode = \"aws\"\nbootstrap-token = \"abcdef.0123456789abcdef\"\n", 1)
	if problems.HasErrors() || len(problems) != 1 || problems[0].Position.Line != 4 {
		t.Fatalf("problems %v", problems)
	}
	if res.Spec.Identity.BootstrapToken.Token != "" || !reflect.DeepEqual(res.Ignored, []string{"settings.kubernetes.bootstrap-token"}) {
		t.Fatalf("identity %+v ignored %q", res.Spec.Identity, res.Ignored)
	}
}

func TestDecodeExtraConfigClash(t *testing.T) {
	extra := base64.StdEncoding.EncodeToString([]byte("registryPullQPS: 5\n"))
	_, problems := decodeString(t, "[settings.kubernetes]\ncluster-name = \"a\"\nkubelet-extra-config = \""+extra+"\"\nregistry-qps = 10\n", 1)
	errs := problems.Filter(diag.SeverityError)
	if len(errs) != 1 || errs[0].Position.Line != 3 || !strings.Contains(errs[0].Message, "settings.kubernetes.registry-qps already sets") {
		t.Fatalf("problems %v", problems)
	}
}

// TestDecodeReservedCPUsUnsetsCgroups checks that reserved-cpus also sets
// the reserved cgroups to null (the kubelet refuses reservedSystemCPUs with
// them), placed on the reserved-cpus line, and that a rejected value
// leaves them alone.
func TestDecodeReservedCPUsUnsetsCgroups(t *testing.T) {
	tests := []struct {
		name    string
		setting string
		want    map[string]string
		errors  int
	}{
		{name: "cpu list", setting: `reserved-cpus = "0-1"`,
			want: map[string]string{"reservedSystemCPUs": `"0-1"`, "kubeReservedCgroup": `null`, "systemReservedCgroup": `null`}},
		{name: "invalid cpu list", setting: `reserved-cpus = "zero"`, want: map[string]string{}, errors: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, problems := decodeString(t, "[settings.kubernetes]\ncluster-name = \"a\"\n"+tc.setting+"\n", 1)
			if got := len(problems.Filter(diag.SeverityError)); got != tc.errors {
				t.Fatalf("%d errors, want %d: %v", got, tc.errors, problems)
			}
			got := map[string]string{}
			for k, v := range res.Spec.Kubelet.Config {
				got[k] = string(v)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("config = %v, want %v", got, tc.want)
			}
			for key := range tc.want {
				if line := res.Positions[configPath(key)].Line; line != 3 {
					t.Errorf("%s on line %d, want 3", key, line)
				}
			}
		})
	}
}

// TestDecodeReservedCPUsClash checks that kubelet-extra-config cannot set a
// reserved cgroup reserved-cpus unsets.
func TestDecodeReservedCPUsClash(t *testing.T) {
	extra := base64.StdEncoding.EncodeToString([]byte("kubeReservedCgroup: /runtime\n"))
	_, problems := decodeString(t, "[settings.kubernetes]\ncluster-name = \"a\"\nreserved-cpus = \"0\"\nkubelet-extra-config = \""+extra+"\"\n", 1)
	errs := problems.Filter(diag.SeverityError)
	if len(errs) != 1 || errs[0].Position.Line != 4 || !strings.Contains(errs[0].Message, "kubeReservedCgroup, which settings.kubernetes.reserved-cpus already sets") {
		t.Fatalf("problems %v", problems)
	}
}

// TestDecodeProblemCount checks that thousands of problems are cut to
// diag.MaxProblems and a summary.
func TestDecodeProblemCount(t *testing.T) {
	var b strings.Builder
	b.WriteString("[settings.kubernetes]\ncluster-name = \"c\"\n[settings.kubernetes.node-labels]\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "team%d = \"a b\"\n", i)
	}
	_, problems := decodeString(t, b.String(), 1)
	if len(problems) != diag.MaxProblems+1 || !strings.Contains(problems[diag.MaxProblems].Message, "2900 more problems") {
		t.Fatalf("%d problems, last %v", len(problems), problems[len(problems)-1])
	}
}

// TestDecodeKubeletRefusals checks that labels and taints the kubelet (or
// the API server) would refuse are errors here too, as for every format.
func TestDecodeKubeletRefusals(t *testing.T) {
	for _, tc := range []struct{ name, settings, want string }{
		{name: "restricted label", settings: "[settings.kubernetes.node-labels]\n\"node-role.kubernetes.io/worker\" = \"\"\n",
			want: "node label node-role.kubernetes.io/worker is in the kubernetes.io/k8s.io namespace"},
		{name: "duplicate taint", settings: "[settings.kubernetes.node-taints]\ndedicated = [\"a:NoSchedule\", \"b:NoSchedule\"]\n",
			want: "repeats the key dedicated with effect NoSchedule"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, problems := decodeString(t, "[settings.kubernetes]\ncluster-name = \"c\"\n"+tc.settings, 1)
			if len(problems) != 1 || !strings.Contains(problems[0].Message, tc.want) || problems[0].Position.Line != 3 {
				t.Fatalf("want one error on line 3 containing %q, got:\n%v", tc.want, problems)
			}
		})
	}
}
