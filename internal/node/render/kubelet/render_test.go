package kubelet

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	kubeletv1 "k8s.io/kubelet/config/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	"sigs.k8s.io/yaml"

	"github.com/nodeboot/nodeboot/internal/config/clusterdns"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/node/render"
)

// baseCase returns a fresh copy of the minimal golden case.
func baseCase(t testing.TB) (hub.NodeConfig, Inputs) {
	t.Helper()
	var cfg hub.NodeConfig
	var in Inputs
	readJSON(t, "testdata/minimal-ipv4-m5large-1.34/config.json", &cfg)
	readJSON(t, "testdata/minimal-ipv4-m5large-1.34/inputs.json", &in)
	return cfg, in
}

func TestRenderErrors(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(*hub.NodeConfig, *Inputs)
		wantErr error
		wantMsg string
	}{
		{"no kubelet version", func(c *hub.NodeConfig, _ *Inputs) { c.Status.KubeletVersion = "" },
			ErrMissingKubeletVersion, "status.kubeletVersion"},
		{"bad kubelet version", func(c *hub.NodeConfig, _ *Inputs) { c.Status.KubeletVersion = "latest" },
			ErrInvalidKubeletVersion, `"latest"`},
		{"no private dns name", func(c *hub.NodeConfig, _ *Inputs) { c.Status.Instance.PrivateDNSName = "" },
			ErrMissingNodeName, "privateDnsName"},
		{"instance id naming without id", func(c *hub.NodeConfig, _ *Inputs) {
			c.Spec.FeatureGates = map[string]bool{"InstanceIdNodeName": true}
			c.Status.Instance.ID = ""
		}, ErrMissingNodeName, "InstanceIdNodeName"},
		{"no node ip", func(c *hub.NodeConfig, _ *Inputs) { c.Status.Instance.NodeIP = "" },
			ErrMissingNodeIP, "nodeIP"},
		{"two node ips", func(c *hub.NodeConfig, _ *Inputs) { c.Status.Instance.NodeIP = "2600:1f14::1\n2600:1f14::2" },
			ErrInvalidNodeIP, "2600:1f14::1"},
		{"no instance id", func(c *hub.NodeConfig, _ *Inputs) { c.Status.Instance.ID = "" },
			ErrMissingInstanceID, "status.instance.id"},
		{"no az", func(c *hub.NodeConfig, _ *Inputs) { c.Status.Instance.AvailabilityZone = "" },
			ErrMissingAvailabilityZone, "availabilityZone"},
		{"no region for default exec args", func(c *hub.NodeConfig, _ *Inputs) { c.Status.Instance.Region = "" },
			ErrMissingRegion, "status.instance.region"},
		{"no cluster name", func(c *hub.NodeConfig, _ *Inputs) { c.Spec.Cluster.Name = "" },
			ErrMissingClusterName, "spec.cluster.name"},
		{"outpost without id", func(c *hub.NodeConfig, _ *Inputs) { c.Spec.Cluster.EnableOutpost = new(true) },
			ErrMissingClusterID, "spec.cluster.id"},
		{"no endpoint", func(c *hub.NodeConfig, _ *Inputs) { c.Spec.Cluster.APIServerEndpoint = "" },
			ErrMissingAPIServerEndpoint, "apiServerEndpoint"},
		{"bad service cidr", func(c *hub.NodeConfig, _ *Inputs) { c.Spec.Cluster.CIDR = "10.100.0.0/33" },
			clusterdns.ErrInvalidServiceCIDR, "10.100.0.0/33"},
		{"no dns source", func(c *hub.NodeConfig, _ *Inputs) {
			c.Spec.Cluster.CIDR = ""
			c.Status.Instance.VPCIPv4CIDRs = nil
		}, clusterdns.ErrNoClusterDNSSource, "spec.cluster.cidr"},
		{"ipv6 without cidr", func(c *hub.NodeConfig, _ *Inputs) {
			c.Spec.Cluster.CIDR = ""
			c.Spec.Cluster.IPFamily = "ipv6"
		}, clusterdns.ErrNoClusterDNSSource, "IPv6"},
		{"unknown identity mode", func(c *hub.NodeConfig, _ *Inputs) { c.Spec.Identity.Mode = "IRSA" },
			ErrUnknownIdentityMode, `"IRSA"`},
		{"bootstrap token missing", func(c *hub.NodeConfig, _ *Inputs) { c.Spec.Identity.Mode = hub.IdentityBootstrapToken },
			ErrMissingBootstrapToken, "token"},
		{"bootstrap token malformed", func(c *hub.NodeConfig, _ *Inputs) {
			c.Spec.Identity.Mode = hub.IdentityBootstrapToken
			c.Spec.Identity.BootstrapToken.Token = "ABCDEF.0123456789abcdef"
		}, ErrInvalidBootstrapToken, "[a-z0-9]{6}"},
		{"kubelet config value not json", func(c *hub.NodeConfig, _ *Inputs) {
			c.Spec.Kubelet.Config = map[string]json.RawMessage{"maxPods": json.RawMessage(`20 21`)}
		}, ErrInvalidKubeletConfig, "kubelet.config.maxPods"},
		{"user flag with space", func(c *hub.NodeConfig, _ *Inputs) {
			c.Spec.Kubelet.Flags = []string{"--v=2", "--node-labels=team=a b"}
		}, ErrUnrepresentableFlag, "spec.kubelet.flags[1]"},
		{"node name with space", func(c *hub.NodeConfig, _ *Inputs) { c.Status.Instance.PrivateDNSName = "ip-10-0-12-34 x" },
			ErrUnrepresentableFlag, "--hostname-override"},
		{"relative credential provider", func(_ *hub.NodeConfig, in *Inputs) { in.CredentialProviderBin = "ecr-credential-provider" },
			ErrInvalidCredentialProviderBin, "ecr-credential-provider"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, in := baseCase(t)
			tc.mutate(&cfg, &in)
			files, err := Render(cfg, in)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Render error = %v, want %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q does not mention %q", err, tc.wantMsg)
			}
			if files != nil {
				t.Errorf("Render returned %d files with an error", len(files))
			}
		})
	}
}

func TestBootstrapTokenNeverInErrors(t *testing.T) {
	cfg, in := baseCase(t)
	cfg.Spec.Identity = hub.Identity{Mode: hub.IdentityBootstrapToken,
		BootstrapToken: hub.BootstrapToken{Token: "abcdef.0123456789abcdeX"}}
	_, err := Render(cfg, in)
	if !errors.Is(err, ErrInvalidBootstrapToken) {
		t.Fatalf("err = %v, want ErrInvalidBootstrapToken", err)
	}
	if strings.Contains(err.Error(), "0123456789") {
		t.Errorf("error leaks the token secret: %v", err)
	}
}

func TestCheckFlag(t *testing.T) {
	tests := []struct {
		arg     string
		wantErr bool
	}{
		{"--v=5", false},
		{"--node-labels=foo=bar,foo2=baz", false},
		{"--register-with-taints=foo=bar:NoSchedule", false},
		{"--eviction-hard=memory.available<5%", false},
		{"", true},
		{"--node-labels=a=b c", true},
		{"--node-labels=a=b\tc", true},
		{"--v=5\nFOO=bar", true},
		{`--node-labels=a="b"`, true},
		{"--node-labels=a='b'", true},
		{`--root-dir=C:\kubelet`, true},
		{"--x=\u00a0", true},
	}
	for _, tc := range tests {
		t.Run(tc.arg, func(t *testing.T) {
			err := checkFlag(tc.arg)
			if (err != nil) != tc.wantErr {
				t.Fatalf("checkFlag(%q) = %v, want error %v", tc.arg, err, tc.wantErr)
			}
			if err != nil && !errors.Is(err, ErrUnrepresentableFlag) {
				t.Errorf("checkFlag(%q) = %v, not ErrUnrepresentableFlag", tc.arg, err)
			}
		})
	}
}

// TestKubeletArgsMatchEnvironment checks that the exported helper and the
// environment file agree, and that user flags come last.
func TestKubeletArgsMatchEnvironment(t *testing.T) {
	for _, tc := range loadGoldenCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			args, err := KubeletArgs(tc.cfg, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			env := fileAt(t, mustRender(t, tc.cfg, tc.in), EnvironmentPath)
			line, _, _ := strings.Cut(string(env.Data), "\n")
			if want := ArgsVariable + "=" + strings.Join(args, " "); line != want {
				t.Errorf("environment line\n got %s\nwant %s", line, want)
			}
			user := tc.cfg.Spec.Kubelet.Flags
			if !slices.Equal(args[len(args)-len(user):], user) {
				t.Errorf("user flags %q are not the tail of %q", user, args)
			}
			if slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--pod-infra-container-image") }) {
				t.Errorf("args contain --pod-infra-container-image: %q", args)
			}
		})
	}
}

func TestNodeName(t *testing.T) {
	cfg, _ := baseCase(t)
	if got, want := NodeName(cfg), "ip-10-0-12-34.us-west-2.compute.internal"; got != want {
		t.Errorf("NodeName = %q, want %q", got, want)
	}
	cfg.Spec.FeatureGates = map[string]bool{"InstanceIdNodeName": true}
	if got, want := NodeName(cfg), "i-0a1b2c3d4e5f60718"; got != want {
		t.Errorf("NodeName with InstanceIdNodeName = %q, want %q", got, want)
	}
	cfg.Spec.FeatureGates["InstanceIdNodeName"] = false
	if got, want := NodeName(cfg), "ip-10-0-12-34.us-west-2.compute.internal"; got != want {
		t.Errorf("NodeName with gate off = %q, want %q", got, want)
	}
}

// TestDropInKeepsUserBaseWithoutDNSSource: with nothing to derive clusterDNS
// from, a user clusterDNS lets the base file leave it out.
func TestDropInKeepsUserBaseWithoutDNSSource(t *testing.T) {
	cfg, in := baseCase(t)
	cfg.Spec.Cluster.CIDR = ""
	cfg.Status.Instance.VPCIPv4CIDRs = nil
	cfg.Spec.Kubelet.Config = map[string]json.RawMessage{"clusterDNS": json.RawMessage(`["10.0.0.2"]`)}
	files := mustRender(t, cfg, in)
	if base := fileAt(t, files, ConfigPath); bytes.Contains(base.Data, []byte("clusterDNS")) {
		t.Errorf("base config has clusterDNS:\n%s", base.Data)
	}
	if dropIn := fileAt(t, files, DropInPath); !bytes.Contains(dropIn.Data, []byte(`"10.0.0.2"`)) {
		t.Errorf("drop-in lacks the user's clusterDNS:\n%s", dropIn.Data)
	}
}

// TestAPIRateBefore127 checks the kubeAPIQPS/kubeAPIBurst that bootstrap.sh
// (to its last version) gives kubelets 1.22 ≤ v < 1.27, which a user's value
// overrides; found by running the real script on the same user data.
func TestAPIRateBefore127(t *testing.T) {
	tests := []struct {
		name, version, userQPS string
		wantQPS, wantBurst     float64
	}{
		{name: "1.26 gets bootstrap.sh's 10/20", version: "v1.26.15", wantQPS: 10, wantBurst: 20},
		{name: "1.22 gets bootstrap.sh's 10/20", version: "v1.22.17", wantQPS: 10, wantBurst: 20},
		{name: "1.27 keeps the kubelet's defaults", version: "v1.27.16"},
		{name: "1.34 keeps the kubelet's defaults", version: "v1.34.4"},
		{name: "the user's kubeAPIQPS wins on 1.26", version: "v1.26.15", userQPS: "30", wantQPS: 30, wantBurst: 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, in := baseCase(t)
			cfg.Status.KubeletVersion = tc.version
			if tc.userQPS != "" {
				cfg.Spec.Kubelet.Config = map[string]json.RawMessage{"kubeAPIQPS": json.RawMessage(tc.userQPS)}
			}
			var got struct {
				QPS   float64 `json:"kubeAPIQPS"`
				Burst float64 `json:"kubeAPIBurst"`
			}
			if err := json.Unmarshal(fileAt(t, mustRender(t, cfg, in), ConfigPath).Data, &got); err != nil {
				t.Fatal(err)
			}
			if got.QPS != tc.wantQPS || got.Burst != tc.wantBurst {
				t.Errorf("kubeAPIQPS/kubeAPIBurst = %v/%v, want %v/%v", got.QPS, got.Burst, tc.wantQPS, tc.wantBurst)
			}
		})
	}
}

func TestDropInKeepsNumbersExact(t *testing.T) {
	cfg, in := baseCase(t)
	cfg.Spec.Kubelet.Config = map[string]json.RawMessage{
		"podPidsLimit": json.RawMessage(`9007199254740993`),
		"kind":         json.RawMessage(`"KubeletConfiguration"`),
	}
	dropIn := fileAt(t, mustRender(t, cfg, in), DropInPath)
	want := "{\n    \"apiVersion\": \"kubelet.config.k8s.io/v1beta1\",\n    \"kind\": \"KubeletConfiguration\",\n" +
		"    \"podPidsLimit\": 9007199254740993\n}\n"
	if string(dropIn.Data) != want {
		t.Errorf("drop-in =\n%s\nwant\n%s", dropIn.Data, want)
	}
}

func TestManagedPathsCoverRenderedFiles(t *testing.T) {
	allowed := append(ManagedPaths(), KubeconfigPath, CACertPath)
	for _, tc := range loadGoldenCases(t) {
		for _, f := range mustRender(t, tc.cfg, tc.in) {
			if !slices.Contains(allowed, f.Path) {
				t.Errorf("%s: rendered %s, which ManagedPaths does not know", tc.name, f.Path)
			}
		}
	}
}

// TestRenderedFilesDecodeStrictly decodes every rendered config into the
// upstream Go types, rejecting unknown fields, so the subset struct and the
// drop-in stay valid KubeletConfiguration / CredentialProviderConfig /
// kubeconfig documents.
func TestRenderedFilesDecodeStrictly(t *testing.T) {
	for _, tc := range loadGoldenCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			for _, f := range mustRender(t, tc.cfg, tc.in) {
				var err error
				switch f.Path {
				case ConfigPath, DropInPath:
					var kc kubeletv1beta1.KubeletConfiguration
					err = decodeStrictJSON(f.Data, &kc)
					if err == nil && (kc.Kind != "KubeletConfiguration" || kc.APIVersion != "kubelet.config.k8s.io/v1beta1") {
						t.Errorf("%s: kind/apiVersion = %q/%q", f.Path, kc.Kind, kc.APIVersion)
					}
				case CredentialProviderConfigPath:
					var cp kubeletv1.CredentialProviderConfig
					err = decodeStrictJSON(f.Data, &cp)
				case KubeconfigPath, BootstrapKubeconfigPath:
					var kc clientcmdv1.Config
					err = yaml.UnmarshalStrict(f.Data, &kc)
				}
				if err != nil {
					t.Errorf("%s: %v", f.Path, err)
				}
			}
		})
	}
}

func decodeStrictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func TestRenderDeterministic(t *testing.T) {
	for _, tc := range loadGoldenCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			first := mustRender(t, tc.cfg, tc.in)
			for range 20 {
				again := mustRender(t, tc.cfg, tc.in)
				if !slices.EqualFunc(first, again, sameFile) {
					t.Fatal("two renders of the same input differ")
				}
			}
		})
	}
}

func TestRenderDoesNotAliasInput(t *testing.T) {
	cfg, in := baseCase(t)
	files := mustRender(t, cfg, in)
	ca := fileAt(t, files, CACertPath)
	ca.Data[0] = 'X'
	if cfg.Spec.Cluster.CertificateAuthority[0] == 'X' {
		t.Error("ca.crt data aliases spec.cluster.certificateAuthority")
	}
}

func sameFile(a, b render.File) bool {
	return a.Path == b.Path && a.Mode == b.Mode && bytes.Equal(a.Data, b.Data)
}

func mustRender(t testing.TB, cfg hub.NodeConfig, in Inputs) []render.File {
	t.Helper()
	files, err := Render(cfg, in)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return files
}

func fileAt(t testing.TB, files []render.File, path string) render.File {
	t.Helper()
	for _, f := range files {
		if f.Path == path {
			return f
		}
	}
	t.Fatalf("no file %s rendered", path)
	return render.File{}
}

// FuzzKubeletArgs checks that whatever user flags are accepted survive the
// environment file: splitting the line on whitespace gives the flags back.
func FuzzKubeletArgs(f *testing.F) {
	f.Add("--v=5", "--node-labels=a=b")
	f.Add("--node-labels=a b", "")
	f.Add(`--x="y"`, "--z=\n")
	cfg, in := baseCase(f)
	f.Fuzz(func(t *testing.T, a, b string) {
		cfg.Spec.Kubelet.Flags = []string{a, b}
		args, err := KubeletArgs(cfg, in)
		if err != nil {
			if !errors.Is(err, ErrUnrepresentableFlag) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		env := fileAt(t, mustRender(t, cfg, in), EnvironmentPath)
		line, _, _ := strings.Cut(string(env.Data), "\n")
		words := strings.Fields(strings.TrimPrefix(line, ArgsVariable+"="))
		if !slices.Equal(words, args) {
			t.Fatalf("environment words %q != args %q", words, args)
		}
	})
}

func BenchmarkRender(b *testing.B) {
	var cfg hub.NodeConfig
	var in Inputs
	readJSON(b, "testdata/user-kubelet-config-dropin/config.json", &cfg)
	readJSON(b, "testdata/user-kubelet-config-dropin/inputs.json", &in)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render(cfg, in); err != nil {
			b.Fatal(err)
		}
	}
}

// TestUserFlagItems: a kubelet.flags item reaches the kubelet as the
// words nodeadm's node gives it (the oracle's kubelet-flags-one-string
// case runs the same item through the real nodeadm).
func TestUserFlagItems(t *testing.T) {
	tests := []struct {
		name string
		item string
		want []string
	}{
		{name: "one flag", item: "--v=2", want: []string{"--v=2"}},
		{name: "quoted value", item: `--node-labels="a=b"`, want: []string{"--node-labels=a=b"}},
		{name: "several flags in one item", item: "--v=2  --node-labels=a=b", want: []string{"--v=2", "--node-labels=a=b"}},
		{name: "shorthand", item: "-v=2", want: []string{"-v=2"}},
	}
	cfg, in := baseCase(t)
	base, err := KubeletArgs(cfg, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg.Spec.Kubelet.Flags = []string{tc.item}
			args, err := KubeletArgs(cfg, in)
			if err != nil {
				t.Fatal(err)
			}
			if got := args[len(base):]; !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestEksctlIMDSLabels: for eksctl's AL2 user data the labels its script
// takes from instance metadata join the eksctl call's --node-labels, after
// the group's labels (so they win over a group label of the same key, as
// on AL2); without the spec's mark nothing is added.
func TestEksctlIMDSLabels(t *testing.T) {
	const imdsLabels = "node-lifecycle=spot,alpha.eksctl.io/instance-id=i-0abc"
	tests := []struct {
		name      string
		mark      bool
		lifecycle string
		flags     []string
		want      []string
	}{
		{name: "appended to the eksctl call's labels", mark: true, lifecycle: "spot",
			flags: []string{"--node-labels=team=payments,alpha.eksctl.io/nodegroup-name=ng-1", "--register-with-taints=dedicated=payments:NoSchedule"},
			want:  []string{"--node-labels=team=payments,alpha.eksctl.io/nodegroup-name=ng-1," + imdsLabels, "--register-with-taints=dedicated=payments:NoSchedule"}},
		{name: "to the last --node-labels", mark: true, lifecycle: "spot",
			flags: []string{"--node-labels=a=b", "--node-labels=node-lifecycle=mine"},
			want:  []string{"--node-labels=a=b", "--node-labels=node-lifecycle=mine," + imdsLabels}},
		{name: "no --node-labels", mark: true, lifecycle: "spot",
			flags: []string{"--v=2"}, want: []string{"--v=2", "--node-labels=" + imdsLabels}},
		{name: "instance-life-cycle unread", mark: true,
			flags: []string{"--node-labels=a=b"}, want: []string{"--node-labels=a=b,alpha.eksctl.io/instance-id=i-0abc"}},
		{name: "not eksctl's AL2 user data", lifecycle: "spot",
			flags: []string{"--node-labels=a=b"}, want: []string{"--node-labels=a=b"}},
	}
	cfg, in := baseCase(t)
	base, err := KubeletArgs(cfg, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			c.Spec.Kubelet.Flags = tc.flags
			c.Spec.Kubelet.EksctlIMDSLabels = tc.mark
			c.Status.Instance.ID, c.Status.Instance.Lifecycle = "i-0abc", tc.lifecycle
			args, err := KubeletArgs(c, in)
			if err != nil {
				t.Fatal(err)
			}
			if got := args[len(base):]; !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if !slices.Equal(c.Spec.Kubelet.Flags, tc.flags) {
				t.Errorf("spec flags changed to %q", c.Spec.Kubelet.Flags)
			}
		})
	}
}
