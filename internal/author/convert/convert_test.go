package convert

import (
	"errors"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
)

func TestTarget(t *testing.T) {
	for _, name := range Targets() {
		if emit, err := Target(name); err != nil || emit == nil {
			t.Errorf("Target(%q) = %v, %v", name, emit, err)
		}
	}
	_, err := Target("ignition")
	if !errors.Is(err, ErrUnknownTarget) || !strings.Contains(err.Error(), "nodeconfig, bootstrap-sh, bottlerocket, windows") {
		t.Fatalf("Target(ignition) error = %v", err)
	}
}

func TestClusterNameRequired(t *testing.T) {
	for _, name := range []string{TargetBootstrapSh, TargetBottlerocket, TargetWindows} {
		emit, _ := Target(name)
		if _, _, err := emit(hub.Spec{}); !errors.Is(err, ErrClusterNameRequired) {
			t.Errorf("%s: error = %v, want ErrClusterNameRequired", name, err)
		}
	}
	if _, _, err := NodeConfig(hub.Spec{}); err != nil {
		t.Errorf("nodeconfig of an empty spec: %v", err)
	}
}

func TestShellQuote(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{name: "safe", in: "prod-1", want: "prod-1"},
		{name: "url", in: "https://a.example.com:443", want: "https://a.example.com:443"},
		{name: "empty", in: "", want: "''"},
		{name: "space", in: "a b", want: "'a b'"},
		{name: "single quote", in: "it's", want: `'it'\''s'`},
		{name: "dollar", in: "$HOME", want: "'$HOME'"},
		{name: "glob", in: "kernel.msg*", want: "'kernel.msg*'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := shellQuote(tc.in); got != tc.want {
				t.Fatalf("shellQuote(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestPowershellQuote(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{name: "plain", in: "prod", want: "'prod'"},
		{name: "apostrophe", in: "it's", want: "'it''s'"},
		{name: "typographic quote", in: "it\u2019s", want: "'it\u2019\u2019s'"},
		{name: "dollar stays literal", in: "$env:X", want: "'$env:X'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := powershellQuote(tc.in); got != tc.want {
				t.Fatalf("powershellQuote(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestFlagTextProblem(t *testing.T) {
	tests := []struct {
		name, arg string
		ok        bool
	}{
		{name: "percent threshold", arg: "--eviction-hard=nodefs.available<10%,memory.available<5%", ok: true},
		{name: "systemd specifier", arg: "--node-labels=a=%n", ok: false},
		{name: "double percent", arg: "--x=10%%", ok: false},
		{name: "space", arg: "--node-labels=a=b c", ok: false},
		{name: "quote", arg: `--node-labels="a"=b`, ok: false},
		{name: "backtick", arg: "--x=`id`", ok: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := flagTextProblem(tc.arg); (got == "") != tc.ok {
				t.Fatalf("flagTextProblem(%q) = %q", tc.arg, got)
			}
		})
	}
}

func TestKubeletFlagParsing(t *testing.T) {
	tests := []struct {
		name, config, text, want string
	}{
		{name: "integer", config: "maxPods", text: "20", want: `20`},
		{name: "string", config: "cpuManagerPolicy", text: "static", want: `"static"`},
		{name: "list", config: "clusterDNS", text: "10.0.0.10,10.0.0.11", want: `["10.0.0.10","10.0.0.11"]`},
		{name: "pairs", config: "kubeReserved", text: "cpu=100m,memory=1Gi", want: `{"cpu":"100m","memory":"1Gi"}`},
		{name: "thresholds", config: "evictionHard", text: "memory.available<5%", want: `{"memory.available":"5%"}`},
		{name: "taints", config: "registerWithTaints", text: "a=b:NoSchedule,c:NoExecute", want: `[{"key":"a","value":"b","effect":"NoSchedule"},{"key":"c","effect":"NoExecute"}]`},
		{name: "reserved memory", config: "reservedMemory", text: "0:memory=1Gi;1:memory=2Gi", want: `[{"numaNode":0,"limits":{"memory":"1Gi"}},{"numaNode":1,"limits":{"memory":"2Gi"}}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			form, ok := kubeletflag.FormByConfig(tc.config)
			if !ok {
				t.Fatalf("no flag form for %s", tc.config)
			}
			raw, err := kubeletflag.ConfigValue(form, tc.text)
			if err != nil || string(raw) != tc.want {
				t.Fatalf("parseValue(%q) = %s, %v; want %s", tc.text, raw, err, tc.want)
			}
			back, err := configFlag(form, raw)
			if err != nil || back != "--"+form.Flag+"="+tc.text {
				t.Fatalf("configFlag = %s, %v; want --%s=%s", back, err, form.Flag, tc.text)
			}
		})
	}
}
