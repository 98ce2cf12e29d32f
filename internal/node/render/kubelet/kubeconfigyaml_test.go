package kubelet

import (
	"reflect"
	"testing"
	"unicode/utf8"

	"sigs.k8s.io/yaml"

	clientcmdv1 "github.com/nodeboot/nodeboot/internal/k8sapi/clientcmd/v1"
)

// roundTrip encodes c and decodes it strictly with a real YAML parser.
func roundTrip(t *testing.T, c clientcmdv1.Config) clientcmdv1.Config {
	t.Helper()
	data := encodeKubeconfig(c)
	var got clientcmdv1.Config
	if err := yaml.UnmarshalStrict(data, &got); err != nil {
		t.Fatalf("decode:\n%s\nerror: %v", data, err)
	}
	return got
}

// normalise maps an empty exec env to nil, which YAML cannot tell apart.
func normalise(c clientcmdv1.Config) clientcmdv1.Config {
	for i := range c.AuthInfos {
		if e := c.AuthInfos[i].AuthInfo.Exec; e != nil && len(e.Env) == 0 {
			e.Env = nil
		}
	}
	return c
}

func TestKubeconfigRoundTrip(t *testing.T) {
	for _, tc := range loadGoldenCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			p, err := newPlan(tc.cfg, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := kubeconfigFor(p)
			if err != nil {
				t.Fatal(err)
			}
			want = normalise(want)
			if got := normalise(roundTrip(t, want)); !reflect.DeepEqual(got, want) {
				t.Errorf("round trip changed the kubeconfig\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestYAMLScalar(t *testing.T) {
	tests := []struct{ in, want string }{
		{"aws", "aws"},
		{"--cluster-name", "--cluster-name"},
		{"-i", "-i"},
		{"https://127.0.0.1:6443", "https://127.0.0.1:6443"},
		{"/etc/kubernetes/pki/ca.crt", "/etc/kubernetes/pki/ca.crt"},
		{"abcdef.0123456789abcdef", "abcdef.0123456789abcdef"},
		{"1234", `"1234"`},
		{"1e3", `"1e3"`},
		{"0x1F", `"0x1F"`},
		{"2026-01-02", `"2026-01-02"`},
		{"true", `"true"`},
		{"No", `"No"`},
		{"off", `"off"`},
		{"null", `"null"`},
		{"~", `"~"`},
		{"", `""`},
		{".inf", `".inf"`},
		{"-", `"-"`},
		{"- x", `"- x"`},
		{"a b", `"a b"`},
		{"key:", `"key:"`},
		{"a#b", `"a#b"`},
		{"*alias", `"*alias"`},
		{"&anchor", `"&anchor"`},
		{"!tag", `"!tag"`},
		{"@at", `"@at"`},
		{"é", `"é"`},
		{"line\nbreak", `"line\nbreak"`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := yamlScalar(tc.in); got != tc.want {
				t.Errorf("yamlScalar(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

// FuzzEncodeKubeconfig checks that every value survives encoding exactly.
func FuzzEncodeKubeconfig(f *testing.F) {
	f.Add("https://x.eks.amazonaws.com", "my-cluster", "AWS_PROFILE", "node", "abcdef.0123456789abcdef")
	f.Add("1234", "--region", "on", "- x", "a: b")
	f.Add("\"q\"", "#c", "~", "\x00", "é\n")
	f.Fuzz(func(t *testing.T, server, arg, envName, envValue, token string) {
		for _, s := range []string{server, arg, envName, envValue, token} {
			if !utf8.ValidString(s) {
				t.Skip("YAML cannot carry invalid UTF-8")
			}
		}
		exec := clientcmdv1.Config{
			Kind: "Config", APIVersion: "v1",
			Clusters:       []clientcmdv1.NamedCluster{{Name: "kubernetes", Cluster: clientcmdv1.Cluster{Server: server, CertificateAuthority: CACertPath}}},
			Contexts:       []clientcmdv1.NamedContext{{Name: "kubelet", Context: clientcmdv1.Context{Cluster: "kubernetes", AuthInfo: arg}}},
			CurrentContext: "kubelet",
			AuthInfos: []clientcmdv1.NamedAuthInfo{{Name: arg, AuthInfo: clientcmdv1.AuthInfo{
				Token: token,
				Exec: &clientcmdv1.ExecConfig{
					APIVersion: execAPIVersion, Command: arg, Args: []string{arg, server},
					Env: []clientcmdv1.ExecEnvVar{{Name: envName, Value: envValue}},
				},
			}}},
		}
		if got := roundTrip(t, exec); !reflect.DeepEqual(got, exec) {
			t.Fatalf("round trip changed the kubeconfig\n got %+v\nwant %+v", got, exec)
		}
	})
}
