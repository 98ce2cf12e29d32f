package kubeapi

import (
	"os"
	"testing"
)

// The kubeconfigs nodeboot renders (golden files of render/kubelet) and
// the one the kubelet writes after TLS bootstrap.
func TestParseKubeconfig(t *testing.T) {
	read := func(p string) []byte {
		b, err := os.ReadFile("../render/kubelet/testdata/" + p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	afterBootstrap := []byte(`apiVersion: v1
clusters:
- cluster:
    certificate-authority: /etc/kubernetes/pki/ca.crt
    server: https://127.0.0.1:6443
  name: default-cluster
contexts:
- context:
    cluster: default-cluster
    namespace: default
    user: default-auth
  name: default-context
current-context: default-context
kind: Config
preferences: {}
users:
- name: default-auth
  user:
    client-certificate: /var/lib/kubelet/pki/kubelet-client-current.pem
    client-key: /var/lib/kubelet/pki/kubelet-client-current.pem
`)
	tests := []struct {
		name, server, ca string
		data             []byte
		check            func(User) bool
	}{
		{"exec credential", "https://4C2F8A1B9E7D3C5A6B0F1E2D3C4B5A69.gr7.us-west-2.eks.amazonaws.com", "/etc/kubernetes/pki/ca.crt",
			read("minimal-ipv4-m5large-1.34/expected/var/lib/kubelet/kubeconfig"),
			func(u User) bool {
				return u.Exec != nil && u.Exec.Command == "aws" && len(u.Exec.Args) == 6 && u.Exec.APIVersion == execAPI
			}},
		{"bootstrap token", "https://127.0.0.1:6443", "/etc/kubernetes/pki/ca.crt",
			read("bootstrap-token/expected/var/lib/kubelet/bootstrap-kubeconfig"),
			func(u User) bool { return u.Token == "abcdef.0123456789abcdef" }},
		{"written by the kubelet after TLS bootstrap", "https://127.0.0.1:6443", "/etc/kubernetes/pki/ca.crt", afterBootstrap,
			func(u User) bool {
				return u.ClientCertificate == "/var/lib/kubelet/pki/kubelet-client-current.pem" && u.ClientKey == u.ClientCertificate
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, err := ParseKubeconfig(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			c, u, err := k.Current()
			if err != nil || c.Server != tc.server || c.CertificateAuthority != tc.ca || !tc.check(u) {
				t.Errorf("Current() = %+v, %+v, %v", c, u, err)
			}
		})
	}
}

func TestParseKubeconfigRefusesBrokenYAML(t *testing.T) {
	if _, err := ParseKubeconfig([]byte("clusters: {")); err == nil {
		t.Error("ParseKubeconfig accepted broken YAML")
	}
}
