package system

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

func withEnvironment(environment map[string]map[string]string) hub.NodeConfig {
	return hub.NodeConfig{Spec: hub.Spec{Instance: hub.Instance{Environment: environment}}}
}

func withNetwork(network hub.Network) hub.NodeConfig {
	return hub.NodeConfig{Spec: hub.Spec{Instance: hub.Instance{Network: network}}}
}

type systemCase struct {
	name        string
	cfg         hub.NodeConfig
	wantActions Actions
}

func systemCases() []systemCase {
	return []systemCase{
		{
			name: "default-environment",
			cfg: withEnvironment(map[string]map[string]string{
				"default": {
					"NO_PROXY":    "localhost,127.0.0.1,169.254.169.254,.internal",
					"HTTP_PROXY":  "http://proxy.example:3128",
					"HTTPS_PROXY": "http://proxy.example:3128",
				},
			}),
			wantActions: Actions{DaemonReload: true},
		},
		{
			name: "escaping",
			cfg: withEnvironment(map[string]map[string]string{
				"default": {
					"QUOTED":  `say "hi"`,
					"SLASHES": `C:\path\to`,
					"PERCENT": "100%% of %n",
					"SPACES":  "a b  c",
					"CONTROL": "line1\nline2\tend\x01",
					"EMPTY":   "",
				},
				"kubelet": {"MIXED": `%"\`},
			}),
			wantActions: Actions{DaemonReload: true},
		},
		{
			name: "services-and-default",
			cfg: withEnvironment(map[string]map[string]string{
				"default":    {"A": "1"},
				"kubelet":    {"KUBELET_X": "k"},
				"containerd": {"CONTAINERD_Y": "c", "CONTAINERD_X": "d"},
			}),
			wantActions: Actions{DaemonReload: true},
		},
		{
			name: "services-only",
			cfg: withEnvironment(map[string]map[string]string{
				"containerd": {"HTTP_PROXY": "http://proxy.example:3128"},
			}),
			wantActions: Actions{DaemonReload: true},
		},
		{
			name: "unit-names",
			cfg: withEnvironment(map[string]map[string]string{
				"kubelet":               {"A": "plain", "B": "plain"},
				"kubelet.service":       {"B": "suffixed"},
				"udev-net-manager@eth1": {"C": "3"},
				"../../etc/evil":        {"D": "4"},
				"":                      {"E": "5"},
			}),
			wantActions: Actions{DaemonReload: true},
		},
		{
			name:        "no-environment",
			cfg:         hub.NodeConfig{},
			wantActions: Actions{},
		},
		{
			name: "empty-maps",
			cfg: withEnvironment(map[string]map[string]string{
				"default": {},
				"kubelet": {},
			}),
			wantActions: Actions{},
		},
		{
			name:        "resolved-nameservers-and-domains",
			cfg:         withNetwork(hub.Network{Nameservers: []string{"10.0.0.2", "fd00::2"}, Domains: []string{"corp.example", "~."}}),
			wantActions: Actions{RestartResolved: true},
		},
		{
			name:        "resolved-nameservers-only",
			cfg:         withNetwork(hub.Network{Nameservers: []string{"1.1.1.1"}}),
			wantActions: Actions{RestartResolved: true},
		},
		{
			name:        "resolved-domains-only",
			cfg:         withNetwork(hub.Network{Domains: []string{"example.com"}, Nameservers: []string{}}),
			wantActions: Actions{RestartResolved: true},
		},
		{
			name: "everything",
			cfg: hub.NodeConfig{Spec: hub.Spec{Instance: hub.Instance{
				Environment: map[string]map[string]string{"default": {"A": "1"}, "kubelet": {"B": "2"}},
				Network:     hub.Network{Nameservers: []string{"10.0.0.2"}},
			}}},
			wantActions: Actions{DaemonReload: true, RestartResolved: true},
		},
	}
}

func TestRenderGolden(t *testing.T) {
	for _, tc := range systemCases() {
		t.Run(tc.name, func(t *testing.T) {
			files, actions := Render(tc.cfg)
			if actions != tc.wantActions {
				t.Errorf("actions %+v, want %+v", actions, tc.wantActions)
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

// TestRenderExactBytes pins the format independently of the golden files.
func TestRenderExactBytes(t *testing.T) {
	tests := []struct {
		name string
		cfg  hub.NodeConfig
		path string
		want string
	}{
		{
			name: "manager lines sorted",
			cfg:  withEnvironment(map[string]map[string]string{"default": {"B": "2", "A": "1"}}),
			path: ManagerEnvironmentPath,
			want: "[Manager]\nDefaultEnvironment=\"A=1\"\nDefaultEnvironment=\"B=2\"\n",
		},
		{
			name: "quote backslash and percent",
			cfg:  withEnvironment(map[string]map[string]string{"kubelet": {"V": `a"b\c%d`}}),
			path: "/etc/systemd/system/kubelet.service.d/environment.conf",
			want: "[Service]\nEnvironment=\"V=a\\\"b\\\\c%%d\"\n",
		},
		{
			name: "control characters",
			cfg:  withEnvironment(map[string]map[string]string{"kubelet": {"V": "x\ny\x7f"}}),
			path: "/etc/systemd/system/kubelet.service.d/environment.conf",
			want: "[Service]\nEnvironment=\"V=x\\ny\\x7f\"\n",
		},
		{
			name: "resolved both lines",
			cfg:  withNetwork(hub.Network{Nameservers: []string{"8.8.8.8", "8.8.4.4"}, Domains: []string{"a.example", "b.example"}}),
			path: ResolvedDropInPath,
			want: "[Resolve]\nDNS=8.8.8.8 8.8.4.4\nDomains=a.example b.example\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files, _ := Render(tc.cfg)
			for _, file := range files {
				if file.Path == tc.path {
					if string(file.Data) != tc.want {
						t.Errorf("got %q, want %q", file.Data, tc.want)
					}
					return
				}
			}
			t.Fatalf("no file %s among %d", tc.path, len(files))
		})
	}
}

func TestServiceNameValid(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{name: "kubelet", want: true},
		{name: "containerd.service", want: true},
		{name: "udev-net-manager@eth0", want: true},
		{name: `dev-disk-by\x2duuid`, want: true},
		{name: "", want: false},
		{name: ".service", want: false},
		{name: "..", want: false},
		{name: "a/b", want: false},
		{name: "has space", want: false},
		{name: "new\nline", want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ServiceNameValid(tc.name); got != tc.want {
				t.Errorf("ServiceNameValid(%q) = %v, want %v", tc.name, got, tc.want)
			}
		})
	}
}

func TestRenderDeterministic(t *testing.T) {
	for _, tc := range systemCases() {
		t.Run(tc.name, func(t *testing.T) {
			first, firstActions := Render(tc.cfg)
			for run := range 50 {
				again, actions := Render(tc.cfg)
				if actions != firstActions || len(again) != len(first) {
					t.Fatalf("run %d: %d files %+v, first %d files %+v", run, len(again), actions, len(first), firstActions)
				}
				for i := range first {
					if again[i].Path != first[i].Path || !bytes.Equal(again[i].Data, first[i].Data) {
						t.Fatalf("run %d: file %d differs: %s vs %s", run, i, again[i].Path, first[i].Path)
					}
				}
			}
		})
	}
}
