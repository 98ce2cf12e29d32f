package containerd

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/merge"
	"github.com/nodeboot/nodeboot/internal/node/render"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

// userV2RealCluster is what the real-cluster e2e host needs (Debian,
// containerd 1.6, cgroup v1 without systemd, CNI plugins in /usr/lib/cni).
const userV2RealCluster = `
[plugins."io.containerd.grpc.v1.cri"]
restrict_oom_score_adj = true

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
SystemdCgroup = false

[plugins."io.containerd.grpc.v1.cri".cni]
bin_dir = "/usr/lib/cni"
`

const userV3 = `
version = 3

[plugins."io.containerd.cri.v1.runtime"]
restrict_oom_score_adj = true

[plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
SystemdCgroup = false

[plugins."io.containerd.cri.v1.images".registry]
config_path = "/etc/containerd/certs.d"
`

func nodeConfig(containerdVersion, kubeletVersion string) hub.NodeConfig {
	return hub.NodeConfig{Status: hub.Status{
		ContainerdVersion: containerdVersion,
		KubeletVersion:    kubeletVersion,
		Hardware:          hub.Hardware{CPUs: 2, MemoryMiB: 8 * 1024},
	}}
}

func with(cfg hub.NodeConfig, edit func(*hub.NodeConfig)) hub.NodeConfig {
	edit(&cfg)
	return cfg
}

type renderCase struct {
	name string
	cfg  hub.NodeConfig
	in   Inputs
}

func goldenCases() []renderCase {
	fastImagePull := func(c *hub.NodeConfig) {
		c.Spec.FeatureGates = map[string]bool{"FastImagePull": true}
		c.Status.Hardware = hub.Hardware{CPUs: 8, MemoryMiB: 16 * 1024}
	}
	return []renderCase{
		{name: "containerd17-default-kubelet131", cfg: nodeConfig("1.7.27", "v1.31.4-eks-aeac579")},
		{name: "containerd17-default-kubelet132", cfg: nodeConfig("1.7.27", "v1.32.0")},
		{name: "containerd17-user-v2", cfg: with(nodeConfig("1.7.27-1.amzn2023.0.1", "v1.34.4"), func(c *hub.NodeConfig) {
			c.Spec.Containerd.Config = userV2RealCluster
		})},
		{name: "containerd16-real-cluster", cfg: with(nodeConfig("1.6.20~ds1", "v1.34.4"), func(c *hub.NodeConfig) {
			c.Spec.Containerd.Config = userV2RealCluster
			c.Status.SandboxImage = "registry.k8s.io/pause:3.10"
		})},
		{name: "containerd2-default", cfg: nodeConfig("2.0.5", "v1.33.1")},
		{name: "containerd2-user-v3", cfg: with(nodeConfig("v2.0.5", "v1.33.1"), func(c *hub.NodeConfig) {
			c.Spec.Containerd.Config = userV3
		})},
		{name: "containerd2-user-v2", cfg: with(nodeConfig("2.1.3", "v1.33.1"), func(c *hub.NodeConfig) {
			c.Spec.Containerd.Config = userV2RealCluster
		})},
		{name: "containerd2-user-neutral", cfg: with(nodeConfig("2.0.5", "v1.33.1"), func(c *hub.NodeConfig) {
			c.Spec.Containerd.Config = "[debug]\nlevel = \"debug\"\n"
		})},
		{
			name: "containerd17-nvidia",
			cfg:  nodeConfig("1.7.27", "v1.32.0"),
			in:   Inputs{RuntimeName: RuntimeNvidia, RuntimeBinary: RuntimeNvidiaBinary},
		},
		{
			name: "containerd2-nvidia",
			cfg:  nodeConfig("2.0.5", "v1.35.0"),
			in:   Inputs{RuntimeName: RuntimeNvidia},
		},
		{name: "containerd17-fast-image-pull", cfg: with(nodeConfig("1.7.27", "v1.32.0"), fastImagePull)},
		{name: "containerd2-fast-image-pull", cfg: with(nodeConfig("2.0.5", "v1.33.1"), fastImagePull)},
		{name: "containerd2-fast-image-pull-too-small", cfg: with(nodeConfig("2.0.5", "v1.33.1"), func(c *hub.NodeConfig) {
			fastImagePull(c)
			c.Status.Hardware.MemoryMiB = 7*1024 - 1
		})},
		{name: "base-runtime-spec-merge", cfg: with(nodeConfig("1.7.27", "v1.31.0"), func(c *hub.NodeConfig) {
			c.Spec.Containerd.BaseRuntimeSpec = map[string]json.RawMessage{
				"process":     json.RawMessage(`{"rlimits":[{"type":"RLIMIT_NOFILE","soft":1024,"hard":1024},{"type":"RLIMIT_NPROC","soft":4096,"hard":4096}]}`),
				"annotations": json.RawMessage(`{"z.example/b":"<two>","a.example/a":"one"}`),
			}
		})},
	}
}

func TestRenderGolden(t *testing.T) {
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			files, err := Render(tc.cfg, tc.in)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			for _, file := range files {
				if file.Mode != 0o644 {
					t.Errorf("%s mode %v, want 0644", file.Path, file.Mode)
				}
			}
			golden.CompareRendered(t, filepath.Join("testdata", tc.name), files)
		})
	}
}

// TestRenderSemantics checks the decisive values in the parsed output, so a
// wrong golden accepted with -update is still caught.
func TestRenderSemantics(t *testing.T) {
	tests := []struct {
		name string
		cfg  hub.NodeConfig
		in   Inputs
		want map[string]any // dotted path -> value
	}{
		{
			name: "1.7 kubelet 1.31 leaves CDI off",
			cfg:  nodeConfig("1.7.27", "v1.31.4"),
			want: map[string]any{
				"version": int64(2),
				"plugins.io.containerd.grpc.v1.cri.enable_cdi":                                     false,
				"plugins.io.containerd.grpc.v1.cri.sandbox_image":                                  DefaultSandboxImage,
				"plugins.io.containerd.grpc.v1.cri.containerd.default_runtime_name":                "runc",
				"plugins.io.containerd.grpc.v1.cri.containerd.runtimes.runc.options.BinaryName":    RuntimeRuncBinary,
				"plugins.io.containerd.grpc.v1.cri.containerd.runtimes.runc.options.SystemdCgroup": true,
				"plugins.io.containerd.grpc.v1.cri.containerd.runtimes.runc.base_runtime_spec":     BaseRuntimeSpecPath,
				"plugins.io.containerd.grpc.v1.cri.cni.bin_dir":                                    "/opt/cni/bin",
			},
		},
		{
			name: "1.7 user v2 fragment wins",
			cfg: with(nodeConfig("1.7.27", "v1.32.0"), func(c *hub.NodeConfig) {
				c.Spec.Containerd.Config = userV2RealCluster
			}),
			want: map[string]any{
				"version": int64(2),
				"plugins.io.containerd.grpc.v1.cri.enable_cdi":                                     true,
				"plugins.io.containerd.grpc.v1.cri.restrict_oom_score_adj":                         true,
				"plugins.io.containerd.grpc.v1.cri.containerd.runtimes.runc.options.SystemdCgroup": false,
				"plugins.io.containerd.grpc.v1.cri.containerd.runtimes.runc.options.BinaryName":    RuntimeRuncBinary,
				"plugins.io.containerd.grpc.v1.cri.cni.bin_dir":                                    "/usr/lib/cni",
				"plugins.io.containerd.grpc.v1.cri.cni.conf_dir":                                   "/etc/cni/net.d",
			},
		},
		{
			name: "2.x user v2 fragment stays version 2 without migration",
			cfg: with(nodeConfig("2.0.5", "v1.33.0"), func(c *hub.NodeConfig) {
				c.Spec.Containerd.Config = userV2RealCluster
			}),
			want: map[string]any{
				"version": int64(2),
				"plugins.io.containerd.grpc.v1.cri.restrict_oom_score_adj": true,
				"plugins.io.containerd.grpc.v1.cri.cni.bin_dir":            "/usr/lib/cni",
			},
		},
		{
			name: "2.x default is version 3 with pinned sandbox",
			cfg:  nodeConfig("2.0.5", "v1.33.0"),
			want: map[string]any{
				"version": int64(3),
				"plugins.io.containerd.cri.v1.images.pinned_images.sandbox":                        DefaultSandboxImage,
				"plugins.io.containerd.cri.v1.images.discard_unpacked_layers":                      true,
				"plugins.io.containerd.cri.v1.runtime.enable_cdi":                                  true,
				"plugins.io.containerd.cri.v1.runtime.containerd.runtimes.runc.options.BinaryName": RuntimeRuncBinary,
				"plugins.io.containerd.cri.v1.images.registry.config_path":                         "/etc/containerd/certs.d:/etc/docker/certs.d",
				"plugins.io.containerd.cri.v1.runtime.containerd.runtimes.runc.runtime_type":       "io.containerd.runc.v2",
			},
		},
		{
			name: "2.x user v3 fragment wins",
			cfg: with(nodeConfig("2.0.5", "v1.33.0"), func(c *hub.NodeConfig) {
				c.Spec.Containerd.Config = userV3
			}),
			want: map[string]any{
				"version": int64(3),
				"plugins.io.containerd.cri.v1.runtime.restrict_oom_score_adj":                         true,
				"plugins.io.containerd.cri.v1.runtime.containerd.runtimes.runc.options.SystemdCgroup": false,
				"plugins.io.containerd.cri.v1.images.registry.config_path":                            "/etc/containerd/certs.d",
				"plugins.io.containerd.cri.v1.images.pinned_images.sandbox":                           DefaultSandboxImage,
			},
		},
		{
			name: "custom sandbox image and escaped binary path",
			cfg: with(nodeConfig("1.7.27", "v1.32.0"), func(c *hub.NodeConfig) {
				c.Status.SandboxImage = "registry.example/pause:3.10"
			}),
			in: Inputs{RuntimeName: "custom_rt", RuntimeBinary: `/opt/odd "dir"\rt`},
			want: map[string]any{
				"plugins.io.containerd.grpc.v1.cri.sandbox_image":                                    "registry.example/pause:3.10",
				"plugins.io.containerd.grpc.v1.cri.containerd.default_runtime_name":                  "custom_rt",
				"plugins.io.containerd.grpc.v1.cri.containerd.runtimes.custom_rt.options.BinaryName": `/opt/odd "dir"\rt`,
			},
		},
		{
			name: "SOCI on containerd 2",
			cfg: with(nodeConfig("2.0.5", "v1.33.0"), func(c *hub.NodeConfig) {
				c.Spec.FeatureGates = map[string]bool{"FastImagePull": true}
				c.Status.Hardware = hub.Hardware{CPUs: 4, MemoryMiB: 7 * 1024}
			}),
			want: map[string]any{
				"plugins.io.containerd.cri.v1.images.snapshotter":                  "soci",
				"plugins.io.containerd.cri.v1.images.disable_snapshot_annotations": false,
				"proxy_plugins.soci.type":                                          "snapshot",
				"proxy_plugins.soci.address":                                       SOCISocket,
				"proxy_plugins.soci.exports.root":                                  SOCIRoot,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files, err := Render(tc.cfg, tc.in)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			config := parseTOMLFile(t, fileData(t, files, ConfigPath))
			for path, want := range tc.want {
				if got := lookup(config, path); got != want {
					t.Errorf("%s = %#v, want %#v", path, got, want)
				}
			}
		})
	}
}

func TestRenderErrors(t *testing.T) {
	tests := []struct {
		name    string
		cfg     hub.NodeConfig
		in      Inputs
		wantErr error
		wantMsg string
	}{
		{
			name:    "v3 fragment on containerd 1.7",
			cfg:     with(nodeConfig("1.7.27", "v1.32.0"), func(c *hub.NodeConfig) { c.Spec.Containerd.Config = userV3 }),
			wantErr: ErrConfigSchema,
			wantMsg: "containerd config schema mismatch: containerd.config uses configuration version 3",
		},
		{
			name: "v3 plugin without version on containerd 1.7",
			cfg: with(nodeConfig("1.7.27", "v1.32.0"), func(c *hub.NodeConfig) {
				c.Spec.Containerd.Config = "[plugins.\"io.containerd.cri.v1.images\".pinned_images]\nsandbox = \"x\"\n"
			}),
			wantErr: ErrConfigSchema,
			wantMsg: "containerd config schema mismatch: containerd.config uses configuration version 3",
		},
		{
			name: "version 2 declared with v3 plugins",
			cfg: with(nodeConfig("2.0.5", "v1.32.0"), func(c *hub.NodeConfig) {
				c.Spec.Containerd.Config = "version = 2\n[plugins.\"io.containerd.cri.v1.runtime\"]\nenable_cdi = true\n"
			}),
			wantErr: ErrConfigSchema,
			wantMsg: "containerd config schema mismatch: containerd.config declares version = 2 but configures the version 3 plugins",
		},
		{
			name:    "version 1 declared",
			cfg:     with(nodeConfig("1.7.27", "v1.32.0"), func(c *hub.NodeConfig) { c.Spec.Containerd.Config = "version = 1\n" }),
			wantErr: ErrConfigSchema,
			wantMsg: "containerd config schema mismatch: containerd.config declares version = 1",
		},
		{
			name:    "user TOML does not parse",
			cfg:     with(nodeConfig("1.7.27", "v1.32.0"), func(c *hub.NodeConfig) { c.Spec.Containerd.Config = "[plugins\n" }),
			wantErr: merge.ErrInvalidTOML,
			wantMsg: "containerd.config: invalid TOML: line 1",
		},
		{
			name:    "no containerd version",
			cfg:     nodeConfig("", "v1.32.0"),
			wantErr: ErrContainerdVersion,
			wantMsg: `unknown containerd version: Status.ContainerdVersion: version "": no numeric major version`,
		},
		{
			name:    "garbage containerd version",
			cfg:     nodeConfig("containerd github.com/containerd/containerd 1.7.27", "v1.32.0"),
			wantErr: ErrContainerdVersion,
		},
		{
			name:    "garbage kubelet version",
			cfg:     nodeConfig("1.7.27", "Kubernetes v1.32.0"),
			wantErr: ErrKubeletVersion,
			wantMsg: `unparseable kubelet version: Status.KubeletVersion: version "Kubernetes v1.32.0"`,
		},
		{
			name:    "runtime name that is not a bare key",
			cfg:     nodeConfig("1.7.27", "v1.32.0"),
			in:      Inputs{RuntimeName: "my.runtime", RuntimeBinary: "/bin/x"},
			wantErr: ErrInvalidRuntime,
			wantMsg: `invalid container runtime: runtime name "my.runtime"`,
		},
		{
			name:    "unknown runtime without binary",
			cfg:     nodeConfig("1.7.27", "v1.32.0"),
			in:      Inputs{RuntimeName: "kata"},
			wantErr: ErrInvalidRuntime,
			wantMsg: `invalid container runtime: runtime "kata" needs a binary path`,
		},
		{
			name:    "relative runtime binary",
			cfg:     nodeConfig("1.7.27", "v1.32.0"),
			in:      Inputs{RuntimeBinary: "runc"},
			wantErr: ErrInvalidRuntime,
			wantMsg: `invalid container runtime: runtime binary "runc" is not an absolute path`,
		},
		{
			name: "base runtime spec value is not JSON",
			cfg: with(nodeConfig("1.7.27", "v1.32.0"), func(c *hub.NodeConfig) {
				c.Spec.Containerd.BaseRuntimeSpec = map[string]json.RawMessage{"process": json.RawMessage(`{`)}
			}),
			wantErr: merge.ErrInvalidJSON,
			wantMsg: `containerd.baseRuntimeSpec: overlay object: invalid JSON: key "process"`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files, err := Render(tc.cfg, tc.in)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want one wrapping %v", err, tc.wantErr)
			}
			if files != nil {
				t.Errorf("files returned with an error: %d", len(files))
			}
			if !strings.HasPrefix(err.Error(), tc.wantMsg) {
				t.Errorf("error %q, want prefix %q", err, tc.wantMsg)
			}
		})
	}
}

func TestFastImagePullEnabled(t *testing.T) {
	tests := []struct {
		name     string
		gates    map[string]bool
		hardware hub.Hardware
		want     bool
	}{
		{name: "gate off", gates: nil, hardware: hub.Hardware{CPUs: 96, MemoryMiB: 384 * 1024}, want: false},
		{name: "gate false", gates: map[string]bool{"FastImagePull": false}, hardware: hub.Hardware{CPUs: 96, MemoryMiB: 384 * 1024}, want: false},
		{name: "exactly at thresholds", gates: map[string]bool{"FastImagePull": true}, hardware: hub.Hardware{CPUs: 4, MemoryMiB: 7168}, want: true},
		{name: "three CPUs", gates: map[string]bool{"FastImagePull": true}, hardware: hub.Hardware{CPUs: 3, MemoryMiB: 16384}, want: false},
		{name: "memory one MiB short", gates: map[string]bool{"FastImagePull": true}, hardware: hub.Hardware{CPUs: 8, MemoryMiB: 7167}, want: false},
		{name: "hardware unknown", gates: map[string]bool{"FastImagePull": true}, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := hub.NodeConfig{Spec: hub.Spec{FeatureGates: tc.gates}, Status: hub.Status{Hardware: tc.hardware}}
			if got := FastImagePullEnabled(cfg); got != tc.want {
				t.Errorf("FastImagePullEnabled = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestMajorMinor(t *testing.T) {
	tests := []struct {
		version      string
		major, minor int
		wantErr      bool
	}{
		{version: "1.7.27", major: 1, minor: 7},
		{version: "v2.0.5", major: 2, minor: 0},
		{version: "2", major: 2, minor: 0},
		{version: "v1.32.1-eks-5e0fdde", major: 1, minor: 32},
		{version: "1.7.27-1.amzn2023.0.1", major: 1, minor: 7},
		{version: "1.6.20~ds1-1+deb12u3", major: 1, minor: 6},
		{version: " 2.1.0-rc.1\n", major: 2, minor: 1},
		{version: "", wantErr: true},
		{version: "x.1", wantErr: true},
		{version: "1.x", wantErr: true},
		{version: "-1.2", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.version, func(t *testing.T) {
			major, minor, err := majorMinor(tc.version)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if major != tc.major || minor != tc.minor {
				t.Errorf("got %d.%d, want %d.%d", major, minor, tc.major, tc.minor)
			}
		})
	}
}

func TestChooseSchema(t *testing.T) {
	tests := []struct {
		name       string
		major      int
		userConfig string
		want       Schema
	}{
		{name: "1.x empty", major: 1, want: SchemaV2},
		{name: "1.x v2 fragment", major: 1, userConfig: userV2RealCluster, want: SchemaV2},
		{name: "1.x neutral fragment", major: 1, userConfig: "[debug]\nlevel = 'info'\n", want: SchemaV2},
		{name: "2.x empty", major: 2, want: SchemaV3},
		{name: "2.x neutral fragment", major: 2, userConfig: "[proxy_plugins.x]\ntype = 'snapshot'\n", want: SchemaV3},
		{name: "2.x v2 fragment", major: 2, userConfig: userV2RealCluster, want: SchemaV2},
		{name: "2.x version 2 declared alone", major: 2, userConfig: "version = 2\n", want: SchemaV2},
		{name: "2.x v3 fragment", major: 2, userConfig: userV3, want: SchemaV3},
		{name: "2.x version 3 with the CRI grpc plugin", major: 2, userConfig: "version = 3\n[plugins.\"io.containerd.grpc.v1.cri\"]\ndisable_tcp_service = true\n", want: SchemaV3},
		{name: "2.x mixed plugins read as v3", major: 2, userConfig: "[plugins.\"io.containerd.grpc.v1.cri\"]\na = 1\n[plugins.\"io.containerd.cri.v1.runtime\"]\nb = 2\n", want: SchemaV3},
		{name: "2.x plugin name only in a comment", major: 2, userConfig: "# io.containerd.grpc.v1.cri\n[debug]\nlevel = 'info'\n", want: SchemaV3},
		{name: "3.x treated like 2.x", major: 3, userConfig: userV2RealCluster, want: SchemaV2},
		{name: "plugins as an array of tables is neutral", major: 2, userConfig: "[[plugins]]\nx = 1\n", want: SchemaV3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := chooseSchema(tc.major, tc.userConfig)
			if err != nil {
				t.Fatalf("chooseSchema: %v", err)
			}
			if got != tc.want {
				t.Errorf("schema %d, want %d", got, tc.want)
			}
		})
	}
}

func TestDefaultBaseRuntimeSpecIsCanonical(t *testing.T) {
	var object map[string]json.RawMessage
	if err := json.Unmarshal(defaultBaseRuntimeSpec, &object); err != nil {
		t.Fatalf("embedded spec: %v", err)
	}
	canonical, err := canonicalJSON(object)
	if err != nil {
		t.Fatalf("canonicalJSON: %v", err)
	}
	if !bytes.Equal(canonical, defaultBaseRuntimeSpec) {
		t.Errorf("embedded base runtime spec is not canonical\n--- canonical ---\n%s", canonical)
	}
	var spec struct {
		Process struct {
			Capabilities struct{ Bounding, Effective, Permitted []string }
			Rlimits      []struct {
				Type       string
				Soft, Hard uint64
			}
			NoNewPrivileges bool
		}
	}
	if err := json.Unmarshal(defaultBaseRuntimeSpec, &spec); err != nil {
		t.Fatalf("decode: %v", err)
	}
	caps := spec.Process.Capabilities
	if len(caps.Bounding) != 14 || len(caps.Effective) != 14 || len(caps.Permitted) != 14 {
		t.Errorf("capabilities %d/%d/%d, want 14 each", len(caps.Bounding), len(caps.Effective), len(caps.Permitted))
	}
	if len(spec.Process.Rlimits) != 1 || spec.Process.Rlimits[0] != (struct {
		Type       string
		Soft, Hard uint64
	}{"RLIMIT_NOFILE", 65536, 1048576}) {
		t.Errorf("rlimits %+v", spec.Process.Rlimits)
	}
	if !spec.Process.NoNewPrivileges {
		t.Errorf("noNewPrivileges is false")
	}
}

func TestRenderDeterministic(t *testing.T) {
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			first, err := Render(tc.cfg, tc.in)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			for run := range 20 {
				again, err := Render(tc.cfg, tc.in)
				if err != nil {
					t.Fatalf("Render run %d: %v", run, err)
				}
				if len(again) != len(first) {
					t.Fatalf("run %d: %d files, first run %d", run, len(again), len(first))
				}
				for i := range first {
					if again[i].Path != first[i].Path || !bytes.Equal(again[i].Data, first[i].Data) {
						t.Fatalf("run %d: file %d (%s) differs", run, i, first[i].Path)
					}
				}
			}
		})
	}
}

func TestRenderDoesNotShareEmbeddedBytes(t *testing.T) {
	cfg := with(nodeConfig("2.0.5", "v1.33.0"), func(c *hub.NodeConfig) {
		c.Spec.FeatureGates = map[string]bool{"FastImagePull": true}
		c.Status.Hardware = hub.Hardware{CPUs: 8, MemoryMiB: 16384}
	})
	files, err := Render(cfg, Inputs{})
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	for _, file := range files {
		for i := range file.Data {
			file.Data[i] = 'x'
		}
	}
	again, err := Render(cfg, Inputs{})
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	for _, file := range again {
		if bytes.Count(file.Data, []byte("x")) == len(file.Data) {
			t.Errorf("%s was overwritten through an earlier result", file.Path)
		}
	}
}

func BenchmarkRenderContainerd(b *testing.B) {
	benchmarks := []struct {
		name string
		cfg  hub.NodeConfig
	}{
		{name: "template-only", cfg: nodeConfig("2.0.5", "v1.33.0")},
		{name: "user-toml-and-spec", cfg: with(nodeConfig("1.7.27", "v1.32.0"), func(c *hub.NodeConfig) {
			c.Spec.Containerd.Config = userV2RealCluster
			c.Spec.Containerd.BaseRuntimeSpec = map[string]json.RawMessage{
				"process": json.RawMessage(`{"rlimits":[{"type":"RLIMIT_NOFILE","soft":1024,"hard":1024}]}`),
			}
		})},
	}
	for _, bm := range benchmarks {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Render(bm.cfg, Inputs{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func fileData(t *testing.T, files []render.File, path string) []byte {
	t.Helper()
	for _, file := range files {
		if file.Path == path {
			return file.Data
		}
	}
	t.Fatalf("no file %s rendered", path)
	return nil
}

func parseTOMLFile(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var table map[string]any
	if err := toml.Unmarshal(data, &table); err != nil {
		t.Fatalf("rendered TOML does not parse: %v\n%s", err, data)
	}
	return table
}

// lookup follows a dotted path in which plugin IDs (which contain dots)
// are matched against the longest key present.
func lookup(table map[string]any, path string) any {
	var current any = table
	rest := path
	for rest != "" {
		m, ok := current.(map[string]any)
		if !ok {
			return nil
		}
		best := ""
		for key := range m {
			if (rest == key || strings.HasPrefix(rest, key+".")) && len(key) > len(best) {
				best = key
			}
		}
		if best == "" {
			return nil
		}
		current, rest = m[best], strings.TrimPrefix(strings.TrimPrefix(rest, best), ".")
	}
	return current
}

// FuzzRenderUserConfig feeds arbitrary containerd.config text: Render must
// not panic, and whatever it renders must parse as TOML.
func FuzzRenderUserConfig(f *testing.F) {
	f.Add(userV2RealCluster, "1.7.27")
	f.Add(userV3, "2.0.5")
	f.Add("version = 2\n[plugins.\"io.containerd.cri.v1.runtime\"]\n", "2.0.5")
	f.Add("[[plugins]]\nx = 1\n", "1.6.20")
	f.Fuzz(func(t *testing.T, userConfig, containerdVersion string) {
		cfg := with(nodeConfig(containerdVersion, "v1.33.0"), func(c *hub.NodeConfig) {
			c.Spec.Containerd.Config = userConfig
		})
		files, err := Render(cfg, Inputs{})
		if err != nil {
			return
		}
		var table map[string]any
		if err := toml.Unmarshal(fileData(t, files, ConfigPath), &table); err != nil {
			t.Fatalf("rendered config does not parse: %v", err)
		}
	})
}
