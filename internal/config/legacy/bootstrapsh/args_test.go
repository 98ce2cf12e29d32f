package bootstrapsh

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
)

func kubeletConfig(kv ...string) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i]] = json.RawMessage(kv[i+1])
	}
	return out
}

// TestParseArgs checks every option's mapping into hub.Spec and the
// problems reported with it.
func TestParseArgs(t *testing.T) {
	pem := realCA
	b64 := base64.StdEncoding.EncodeToString([]byte(pem))
	wrapped := b64[:20] + "\n" + b64[20:40] + "\r\n " + b64[40:]
	tests := []struct {
		name      string
		args      []string
		want      hub.Spec
		wantErrs  []string
		wantWarns []string
	}{
		{name: "cluster name only", args: []string{"c"}, want: hub.Spec{Cluster: hub.Cluster{Name: "c"}}},
		{name: "options before the name", args: []string{"--use-max-pods", "false", "c"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c"}, MaxPods: hub.MaxPodsPolicy{Set: ptr(false)}}},
		{name: "endpoint and wrapped CA", args: []string{"c", "--apiserver-endpoint", "https://x.eks.amazonaws.com", "--b64-cluster-ca", wrapped},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c", APIServerEndpoint: "https://x.eks.amazonaws.com", CertificateAuthority: []byte(pem)}}},
		{name: "DNS list", args: []string{"c", "--dns-cluster-ip", "10.100.0.10,fd00::a"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c"}, Kubelet: hub.Kubelet{Config: kubeletConfig("clusterDNS", `["10.100.0.10","fd00::a"]`)}}},
		// The kubelet skips a clusterDNS entry that is no IP address, so the
		// real bootstrap.sh boots these (found by running it): warned, left out.
		{name: "DNS trailing comma boots like AL2", args: []string{"c", "--dns-cluster-ip", "10.100.0.10,"},
			want:      hub.Spec{Cluster: hub.Cluster{Name: "c"}, Kubelet: hub.Kubelet{Config: kubeletConfig("clusterDNS", `["10.100.0.10"]`)}},
			wantWarns: []string{"--dns-cluster-ip: '' is not an IP address and is left out; the kubelet skips it"}},
		{name: "DNS entry after a blank boots like AL2", args: []string{"c", "--dns-cluster-ip", "10.100.0.10, 169.254.20.10"},
			want:      hub.Spec{Cluster: hub.Cluster{Name: "c"}, Kubelet: hub.Kubelet{Config: kubeletConfig("clusterDNS", `["10.100.0.10"]`)}},
			wantWarns: []string{"--dns-cluster-ip: ' 169.254.20.10' is not an IP address and is left out"}},
		{name: "DNS without any address", args: []string{"c", "--dns-cluster-ip", "dns,"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c"}}, wantErrs: []string{"--dns-cluster-ip: dns, '' is not an IP address"}},
		{name: "IPv4 service CIDR", args: []string{"c", "--service-ipv4-cidr", "172.20.0.0/16"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c", CIDR: "172.20.0.0/16"}}},
		{name: "IPv4 service CIDR that is IPv6", args: []string{"c", "--service-ipv4-cidr", "fd00::/108"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c"}}, wantErrs: []string{"--service-ipv4-cidr fd00::/108 is not an IPv4 CIDR"}},
		{name: "IPv6 service CIDR", args: []string{"c", "--service-ipv6-cidr", "fd30:1c53:5f8a::/108"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c", CIDR: "fd30:1c53:5f8a::/108"}}},
		{name: "IPv6 service CIDR wins", args: []string{"c", "--service-ipv4-cidr", "10.100.0.0/16", "--service-ipv6-cidr", "fd30::/108"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c", CIDR: "fd30::/108"}}, wantWarns: []string{"--service-ipv4-cidr is ignored: --service-ipv6-cidr makes the cluster IPv6"}},
		{name: "IP family lower-cased", args: []string{"c", "--ip-family", "IPv6"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c", IPFamily: "ipv6"}}},
		{name: "IPv4 CIDR with IPv6 family", args: []string{"c", "--ip-family", "ipv6", "--service-ipv4-cidr", "10.100.0.0/16"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c", IPFamily: "ipv6"}}, wantWarns: []string{"--service-ipv4-cidr is ignored: --ip-family is ipv6"}},
		{name: "use max pods true", args: []string{"c", "--use-max-pods", "true"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c"}, MaxPods: hub.MaxPodsPolicy{Set: ptr(true)}}},
		{name: "use max pods not boolean", args: []string{"c", "--use-max-pods", "yes"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c"}, MaxPods: hub.MaxPodsPolicy{Set: ptr(false)}}, wantWarns: []string{`--use-max-pods yes is neither true nor false; bootstrap.sh takes anything but "true" as false`}},
		{name: "outposts", args: []string{"c", "--enable-local-outpost", "true", "--cluster-id", "id-1"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c", EnableOutpost: ptr(true), ID: "id-1"}}},
		{name: "outposts off", args: []string{"c", "--enable-local-outpost", "false"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c", EnableOutpost: ptr(false)}}},
		{name: "local disks raid10", args: []string{"c", "--local-disks", "raid10"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c"}, Instance: hub.Instance{LocalStorage: hub.LocalStorage{Strategy: "RAID10"}}}},
		{name: "local disks none", args: []string{"c", "--local-disks", "none"}, want: hub.Spec{Cluster: hub.Cluster{Name: "c"}}},
		{name: "containerd", args: []string{"c", "--container-runtime", "containerd"}, want: hub.Spec{Cluster: hub.Cluster{Name: "c"}}},
		{name: "unknown runtime", args: []string{"c", "--container-runtime", "containerd2"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c"}}, wantErrs: []string{"--container-runtime containerd2 is not a container runtime bootstrap.sh knows; nodeboot supports containerd only; did you mean containerd?"}},
		{name: "kubelet extra args", args: []string{"c", "--kubelet-extra-args", `--node-labels="a=1, b=2" --v 3 --max-pods 0x1d --node-labels=a=3 --register-with-taints=x:NoSchedule --register-with-taints=y=z:NoExecute --cpu-cfs-quota --pods-per-core=10`},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c"}, Kubelet: hub.Kubelet{
				Config: kubeletConfig("maxPods", "29"),
				Flags:  []string{"--node-labels=a=3,b=2", "--v=3", "--register-with-taints=y=z:NoExecute", "--cpu-cfs-quota", "--pods-per-core=10"},
			}},
			wantWarns: []string{"--max-pods=0x1d is read by the kubelet as 29", "--register-with-taints is given 2 times; the kubelet keeps only the last one (y=z:NoExecute)"}},
		{name: "kubelet extra args short -v", args: []string{"c", "--kubelet-extra-args", "-v=4 -v 5 -v6"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c"}, Kubelet: hub.Kubelet{Flags: []string{"--v=4", "--v=5", "--v=6"}}}},
		{name: "kubelet extra args empty taints clear", args: []string{"c", "--kubelet-extra-args", "--register-with-taints=a:NoSchedule --register-with-taints="},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c"}}, wantWarns: []string{"given 2 times"}},
		{name: "kubelet extra args whitespace in value", args: []string{"c", "--kubelet-extra-args", `--system-reserved="cpu=1, memory=1Gi"`},
			want:     hub.Spec{Cluster: hub.Cluster{Name: "c"}, Kubelet: hub.Kubelet{Flags: []string{"--system-reserved=cpu=1, memory=1Gi"}}},
			wantErrs: []string{"contains a blank (U+0020): systemd splits the kubelet's command line at blanks"}},
		{name: "kubelet extra args bad max pods", args: []string{"c", "--kubelet-extra-args", "--max-pods=many --max-pods=0"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c"}}, wantErrs: []string{"--max-pods=many is not a whole number", "--max-pods=0 must be at least 1"}},
		{name: "kubelet extra args invalid label", args: []string{"c", "--kubelet-extra-args", `--node-labels="a=b,bad key=x,c=in valid,-x=y"`},
			want:     hub.Spec{Cluster: hub.Cluster{Name: "c"}, Kubelet: hub.Kubelet{Flags: []string{"--node-labels=a=b"}}},
			wantErrs: []string{"node label key 'bad key' is invalid", "node label c has an invalid value 'in valid'", "node label key -x is invalid"}},
		{name: "kubelet extra args bad taints", args: []string{"c", "--kubelet-extra-args", "--register-with-taints=a=b=c:NoSchedule,k:Sometimes"},
			want:     hub.Spec{Cluster: hub.Cluster{Name: "c"}, Kubelet: hub.Kubelet{Flags: []string{"--register-with-taints=a=b=c:NoSchedule,k:Sometimes"}}},
			wantErrs: []string{"taint a=b=c:NoSchedule in --register-with-taints has more than one =", "taint k:Sometimes in --register-with-taints has effect Sometimes"}},
		{name: "kubelet extra args stray words", args: []string{"c", "--kubelet-extra-args", "max-pods=3 -- -x"},
			want:     hub.Spec{Cluster: hub.Cluster{Name: "c"}},
			wantErrs: []string{`stray argument "max-pods=3"`, `-- ends the kubelet's flags, and the kubelet refuses "-x" after it`}},
		{name: "reserved cpus", args: []string{"c", "--kubelet-extra-args", "--reserved-cpus 0-3"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c"}, Kubelet: hub.Kubelet{
				Config: kubeletConfig("systemReservedCgroup", "null", "kubeReservedCgroup", "null"),
				Flags:  []string{"--reserved-cpus=0-3"},
			}}},
		{name: "joined form", args: []string{"--apiserver-endpoint=https://x", "c"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c", APIServerEndpoint: "https://x"}}, wantWarns: []string{"bootstrap.sh does not understand --apiserver-endpoint=value"}},
		{name: "last value wins", args: []string{"c", "--cluster-id", "a", "--cluster-id", "b"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c", ID: "b"}}, wantWarns: []string{"--cluster-id is given more than once; the last value wins"}},
		{name: "empty value means absent", args: []string{"c", "--apiserver-endpoint", "", "--use-max-pods", ""},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c"}}},
		{name: "extra positional", args: []string{"c", "d"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c"}}, wantWarns: []string{"extra argument d is ignored"}},
		{name: "unknown option skips its value", args: []string{"--cluster-name", "x", "c"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c"}}, wantErrs: []string{"unknown bootstrap.sh option --cluster-name; did you mean --cluster-id?"}},
		{name: "unknown joined option", args: []string{"c", "--node-labels=a=b"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c"}}, wantErrs: []string{"--node-labels is not a bootstrap.sh option but a kubelet flag"}},
		{name: "empty cluster name", args: []string{""}, wantErrs: []string{"cluster name is empty"}},
		{name: "no arguments", args: nil, wantErrs: []string{"cluster name is not defined"}},
		{name: "CA with text after the PEM block", args: []string{"c", "--b64-cluster-ca", base64.StdEncoding.EncodeToString([]byte(realCA + "garbage\n"))},
			want:     hub.Spec{Cluster: hub.Cluster{Name: "c", CertificateAuthority: []byte(realCA + "garbage\n")}},
			wantErrs: []string{`after PEM block 1, is not PEM ("garbage")`}},
		{name: "duplicate taints", args: []string{"c", "--kubelet-extra-args", "--register-with-taints=a=b:NoSchedule,a=c:NoSchedule"},
			want:     hub.Spec{Cluster: hub.Cluster{Name: "c"}, Kubelet: hub.Kubelet{Flags: []string{"--register-with-taints=a=b:NoSchedule,a=c:NoSchedule"}}},
			wantErrs: []string{"repeats the key a with effect NoSchedule"}},
		{name: "bad node name", args: []string{"c", "--kubelet-extra-args", "--hostname-override=node_1"},
			want:     hub.Spec{Cluster: hub.Cluster{Name: "c"}, Kubelet: hub.Kubelet{Flags: []string{"--hostname-override=node_1"}}},
			wantErrs: []string{"is not a valid node name"}},
		{name: "ignored options", args: []string{"c", "--pause-container-version", "3.10", "--docker-config-json", "{}", "--containerd-config-file", "/etc/c.toml", "--aws-api-retry-attempts", "5", "--enable-docker-bridge", "false", "--mount-bpf-fs", "true"},
			want: hub.Spec{Cluster: hub.Cluster{Name: "c"}},
			wantWarns: []string{
				"--docker-config-json is ignored: it configures dockerd only",
				"--pause-container-version is ignored: nodeboot takes the sandbox (pause) image from the node",
				"--aws-api-retry-attempts is ignored",
				"--containerd-config-file /etc/c.toml is ignored: nodeboot does not read files named in user data",
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := diag.Source{URI: "cmdline"}
			got, problems := ParseArgs(tc.args, src)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("spec =\n%s\nwant\n%s", specJSON(t, got), specJSON(t, tc.want))
			}
			checkMessages(t, problems.Filter(diag.SeverityError), tc.wantErrs)
			checkMessages(t, problems.Filter(diag.SeverityWarning), tc.wantWarns)
			for _, p := range problems {
				if p.Source.URI != "cmdline" || p.Source.Format != FormatName || !p.Position.IsZero() {
					t.Errorf("problem source/position: %+v", p)
				}
			}
		})
	}
}

// realCA is a CA certificate that passes the hub's check.
var realCA = mustRead("../../validate/testdata/ca.pem")

func mustRead(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// checkMessages requires one problem per wanted substring, in order.
func checkMessages(t *testing.T, got diag.List, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d problems, want %d:\n%s", len(got), len(want), render(got))
		return
	}
	for i, w := range want {
		if !strings.Contains(got[i].Message, w) {
			t.Errorf("problem %d = %q, want it to contain %q", i, got[i].Message, w)
		}
	}
}

// TestParseArgsEnv checks that the environment supplies absent options.
func TestParseArgsEnv(t *testing.T) {
	env := []string{"USE_MAX_PODS=false", "KUBELET_EXTRA_ARGS=--max-pods=11", "CLUSTER_ID=from-env", "APISERVER_ENDPOINT=", "PATH=/usr/bin", "BROKEN"}
	got, problems := ParseArgsEnv([]string{"c", "--cluster-id", "from-flag"}, env, diag.Source{})
	want := hub.Spec{
		Cluster: hub.Cluster{Name: "c", ID: "from-flag"},
		Kubelet: hub.Kubelet{Config: kubeletConfig("maxPods", "11")},
		MaxPods: hub.MaxPodsPolicy{Set: ptr(false)},
	}
	if !reflect.DeepEqual(got, want) || len(problems) != 0 {
		t.Errorf("spec =\n%s\nproblems:\n%s", specJSON(t, got), render(problems))
	}
	_, problems = ParseArgsEnv([]string{"c"}, []string{"USE_MAX_PODS=maybe"}, diag.Source{})
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "--use-max-pods (from the exported variable USE_MAX_PODS) maybe is neither true nor false") {
		t.Errorf("problems:\n%s", render(problems))
	}
}
