package validate

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

func TestSpecCluster(t *testing.T) {
	ca := testCA(t)
	tests := []struct {
		name    string
		cluster hub.Cluster
		want    []wantError
	}{
		{name: "valid", cluster: hub.Cluster{Name: "c", APIServerEndpoint: "https://abc.gr7.us-west-2.eks.amazonaws.com/", CertificateAuthority: ca, CIDR: "10.100.0.0/16", IPFamily: "ipv4"}},
		{name: "endpoint with port", cluster: hub.Cluster{APIServerEndpoint: "https://10.0.0.1:6443"}},
		{name: "endpoint without scheme", cluster: hub.Cluster{APIServerEndpoint: "abc.eks.amazonaws.com"},
			want: []wantError{{"spec.cluster.apiServerEndpoint", "must be an absolute URL with a scheme; write it like https://abc.eks.amazonaws.com"}}},
		{name: "endpoint host:port without scheme", cluster: hub.Cluster{APIServerEndpoint: "abc.eks.amazonaws.com:443"},
			want: []wantError{{"spec.cluster.apiServerEndpoint", "must be an absolute URL with a scheme"}}},
		{name: "endpoint ftp", cluster: hub.Cluster{APIServerEndpoint: "ftp://abc"},
			want: []wantError{{"spec.cluster.apiServerEndpoint", `scheme "ftp" is not supported`}}},
		{name: "endpoint without host", cluster: hub.Cluster{APIServerEndpoint: "https:///x"},
			want: []wantError{{"spec.cluster.apiServerEndpoint", "has no host"}}},
		{name: "endpoint with path", cluster: hub.Cluster{APIServerEndpoint: "https://abc/api"},
			want: []wantError{{"spec.cluster.apiServerEndpoint", `must not have a path ("/api")`}}},
		{name: "endpoint with query", cluster: hub.Cluster{APIServerEndpoint: "https://abc?x=1"},
			want: []wantError{{"spec.cluster.apiServerEndpoint", "must not have a query or fragment"}}},
		{name: "endpoint with user", cluster: hub.Cluster{APIServerEndpoint: "https://u:p@abc"},
			want: []wantError{{"spec.cluster.apiServerEndpoint", "must not contain user information"}}},
		{name: "endpoint unparsable", cluster: hub.Cluster{APIServerEndpoint: "https://a b"},
			want: []wantError{{"spec.cluster.apiServerEndpoint", "is not a URL (invalid character"}}},
		{name: "cidr host bits", cluster: hub.Cluster{CIDR: "10.100.0.5/16"},
			want: []wantError{{"spec.cluster.cidr", `Invalid value: "10.100.0.5/16": is not a network address (host bits are set); did you mean 10.100.0.0/16?`}}},
		{name: "cidr ipv6 host bits", cluster: hub.Cluster{CIDR: "fd00::1/108"},
			want: []wantError{{"spec.cluster.cidr", "did you mean fd00::/108 (cluster DNS fd00::a)?"}}},
		{name: "cidr without length", cluster: hub.Cluster{CIDR: "10.100.0.0"},
			want: []wantError{{"spec.cluster.cidr", "has no prefix length"}}},
		{name: "cidr garbage", cluster: hub.Cluster{CIDR: "10.100/16"},
			want: []wantError{{"spec.cluster.cidr", "is not a CIDR"}}},
		{name: "cidr small enough", cluster: hub.Cluster{CIDR: "10.100.0.0/28"}},
		{name: "cidr too small for the DNS address", cluster: hub.Cluster{CIDR: "10.100.0.0/29"},
			want: []wantError{{"spec.cluster.cidr", "has no room for the cluster DNS address (the network address + 10): nodeadm and bootstrap.sh derive 10.100.0.10, outside the range"}}},
		{name: "ipv6 cidr too small", cluster: hub.Cluster{CIDR: "fd00::/125"},
			want: []wantError{{"spec.cluster.cidr", "nodeadm and bootstrap.sh derive fd00::a, outside the range"}}},
		{name: "ip family", cluster: hub.Cluster{IPFamily: "IPv6"},
			want: []wantError{{"spec.cluster.ipFamily", `Unsupported value: "IPv6"`}}},
		{name: "outpost without id is left to Merged", cluster: hub.Cluster{EnableOutpost: ptr(true)}},
		{name: "outpost false without id", cluster: hub.Cluster{EnableOutpost: ptr(false)}},
		{name: "outpost with id", cluster: hub.Cluster{EnableOutpost: ptr(true), ID: "x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, Spec(hub.Spec{Cluster: tc.cluster}), tc.want)
		})
	}
}

func TestCertificateAuthorityProblem(t *testing.T) {
	ca := testCA(t)
	der := pemDER(t, ca)
	tests := []struct {
		name string
		ca   []byte
		want string
	}{
		{name: "valid", ca: ca, want: ""},
		{name: "bundle of two", ca: append(append([]byte{}, ca...), ca...), want: ""},
		{name: "empty", ca: []byte{}, want: "is empty; set it to the base64 of the cluster CA PEM file"},
		{name: "blank", ca: []byte(" \n"), want: "is empty"},
		{name: "private key", ca: pemBlock("RSA PRIVATE KEY", []byte{1, 2}), want: `PEM block 1 is a "RSA PRIVATE KEY", not a CERTIFICATE`},
		{name: "second block broken", ca: append(append([]byte{}, ca...), pemBlock("CERTIFICATE", []byte{1, 2, 3})...), want: "PEM block 2 is not a valid x509 certificate: x509: malformed certificate"},
		{name: "der", ca: der, want: "is a DER certificate, not PEM"},
		{name: "double base64", ca: []byte("LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t"), want: "is base64-encoded twice"},
		{name: "random bytes", ca: []byte("hello"), want: "decodes to 5 bytes without a PEM CERTIFICATE block"},
		{name: "trailing blank lines", ca: append(append([]byte{}, ca...), "\n \n\t"...), want: ""},
		{name: "trailing garbage", ca: append(append([]byte{}, ca...), "garbage\n"...),
			want: fmt.Sprintf(`line %d of the decoded PEM text, after PEM block 1, is not PEM ("garbage"); remove it`, lines(ca)+1)},
		{name: "garbage before", ca: append([]byte("# cluster CA\n"), ca...),
			want: `line 1 of the decoded PEM text, before PEM block 1, is not PEM ("# cluster CA"); remove it`},
		{name: "garbage between", ca: append(append(append([]byte{}, ca...), "x\n"...), ca...),
			want: fmt.Sprintf(`line %d of the decoded PEM text, after PEM block 1, is not PEM ("x")`, lines(ca)+1)},
		{name: "unterminated block", ca: append(append([]byte{}, ca...), "-----BEGIN CERTIFICATE-----\nMIIB\n"...),
			want: fmt.Sprintf(`line %d of the decoded PEM text, after PEM block 1, is not PEM ("-----BEGIN CERTIFICATE-----"); remove it`, lines(ca)+1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CertificateAuthorityProblem(tc.ca)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("CertificateAuthorityProblem() = %q, want %q", got, tc.want)
			}
		})
	}
}

// lines counts the lines of b.
func lines(b []byte) int { return strings.Count(string(b), "\n") }

func TestSpecCertificateAuthorityOmitsValue(t *testing.T) {
	errs := Spec(hub.Spec{Cluster: hub.Cluster{CertificateAuthority: []byte("secret-ish")}})
	assertErrors(t, errs, []wantError{{"spec.cluster.certificateAuthority", "Invalid value: decodes to 10 bytes"}})
}

func TestSpecInstance(t *testing.T) {
	tests := []struct {
		name     string
		instance hub.Instance
		want     []wantError
	}{
		{name: "valid", instance: hub.Instance{
			Environment:  map[string]map[string]string{"default": {"HTTP_PROXY": "x"}, "kubelet": {"A_1": ""}, "getty@tty1": {"X": "y"}},
			LocalStorage: hub.LocalStorage{Strategy: "RAID10", MountPath: "/mnt/x", DisabledMounts: []string{"Containerd", "PodLogs", "SOCI"}},
			Network:      hub.Network{Nameservers: []string{"10.0.0.2", "fd00::53"}, Domains: []string{"corp.internal", "~."}},
		}},
		{name: "strategy lower case", instance: hub.Instance{LocalStorage: hub.LocalStorage{Strategy: "raid0"}},
			want: []wantError{{"spec.instance.localStorage.strategy", "must be one of RAID0, RAID10, Mount; did you mean RAID0?"}}},
		{name: "strategy unknown", instance: hub.Instance{LocalStorage: hub.LocalStorage{Strategy: "LVM"}},
			want: []wantError{{"spec.instance.localStorage.strategy", `Invalid value: "LVM": must be one of RAID0, RAID10, Mount`}}},
		{name: "relative mount path", instance: hub.Instance{LocalStorage: hub.LocalStorage{MountPath: "mnt/disks"}},
			want: []wantError{{"spec.instance.localStorage.mountPath", "must be an absolute path"}}},
		{name: "disabled mount unknown and duplicate", instance: hub.Instance{LocalStorage: hub.LocalStorage{DisabledMounts: []string{"PodLogs", "Kubelet", "PodLogs"}}},
			want: []wantError{
				{"spec.instance.localStorage.disabledMounts[1]", "must be one of Containerd, PodLogs, SOCI"},
				{"spec.instance.localStorage.disabledMounts[2]", `Duplicate value: "PodLogs"`},
			}},
		{name: "service with suffix", instance: hub.Instance{Environment: map[string]map[string]string{"kubelet.service": {"A": "b"}}},
			want: []wantError{{"spec.instance.environment[kubelet.service]", `give the service name without .service ("kubelet")`}}},
		{name: "service with space", instance: hub.Instance{Environment: map[string]map[string]string{"my svc": nil}},
			want: []wantError{{"spec.instance.environment[my svc]", "is not a systemd service name"}}},
		{name: "bad variable name", instance: hub.Instance{Environment: map[string]map[string]string{"default": {"1X": "a", "HTTP-PROXY": "b"}}},
			want: []wantError{
				{"spec.instance.environment[default][1X]", "is not a valid environment variable name"},
				{"spec.instance.environment[default][HTTP-PROXY]", "is not a valid environment variable name"},
			}},
		{name: "variable with newline", instance: hub.Instance{Environment: map[string]map[string]string{"default": {"A": "x\ny"}}},
			want: []wantError{{"spec.instance.environment[default][A]", "must not contain a line break"}}},
		{name: "nameserver not ip", instance: hub.Instance{Network: hub.Network{Nameservers: []string{"10.0.0.2", "dns.corp"}}},
			want: []wantError{{"spec.instance.network.nameservers[1]", `Invalid value: "dns.corp": must be an IP address`}}},
		{name: "domain with space", instance: hub.Instance{Network: hub.Network{Domains: []string{"a b"}}},
			want: []wantError{{"spec.instance.network.domains[0]", "must be one non-empty domain"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, Spec(hub.Spec{Instance: tc.instance}), tc.want)
		})
	}
}

func TestSpecKubelet(t *testing.T) {
	tests := []struct {
		name    string
		kubelet hub.Kubelet
		want    []wantError
	}{
		{name: "valid", kubelet: hub.Kubelet{
			Flags:             []string{"--node-labels=a=b", "--v=2"},
			MaxPodsExpression: "(default_enis - 1) * (ips_per_eni - 1) + 2",
			Config:            map[string]json.RawMessage{"kind": json.RawMessage(`"KubeletConfiguration"`), "apiVersion": json.RawMessage(`"kubelet.config.k8s.io/v1beta1"`)},
		}},
		{name: "flag without dashes", kubelet: hub.Kubelet{Flags: []string{"--v=2", "node-labels=a=b"}},
			want: []wantError{{"spec.kubelet.flags[1]", "must start with --"}}},
		{name: "single dash", kubelet: hub.Kubelet{Flags: []string{"-v=2"}},
			want: []wantError{{"spec.kubelet.flags[0]", "must start with --"}}},
		{name: "empty flag name", kubelet: hub.Kubelet{Flags: []string{"--=x"}},
			want: []wantError{{"spec.kubelet.flags[0]", "has no flag name"}}},
		{name: "two flags in one item", kubelet: hub.Kubelet{Flags: []string{"--v=2 --node-labels=a=b"}},
			want: []wantError{{"spec.kubelet.flags[0]", "contains a blank (U+0020)"}}},
		{name: "wrong kind", kubelet: hub.Kubelet{Config: map[string]json.RawMessage{"kind": json.RawMessage(`"KubeProxyConfiguration"`)}},
			want: []wantError{{"spec.kubelet.config[kind]", "must be KubeletConfiguration when given"}}},
		{name: "wrong api version", kubelet: hub.Kubelet{Config: map[string]json.RawMessage{"apiVersion": json.RawMessage(`"kubelet.config.k8s.io/v1"`)}},
			want: []wantError{{"spec.kubelet.config[apiVersion]", "must be kubelet.config.k8s.io/v1beta1 when given"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, Spec(hub.Spec{Kubelet: tc.kubelet}), tc.want)
		})
	}
}

// TestSpecContainerd checks that containerd.config is TOML some containerd
// can read, without ever printing it (it may hold registry credentials).
func TestSpecContainerd(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		want         []wantError
	}{
		{name: "empty"},
		{name: "version 2", config: "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\nsandbox_image = \"x\"\n"},
		{name: "version 3 by its plugins", config: "[plugins.\"io.containerd.cri.v1.images\"]\nsnapshotter = \"x\"\n"},
		{name: "neutral", config: "[debug]\nlevel = \"info\"\n"},
		{name: "version 1", config: "version = 1\npassword = \"s3cr3t\"\n",
			want: []wantError{{"spec.containerd.config", "Invalid value: containerd.config declares version = 1; nodeboot writes version 2 or 3"}}},
		{name: "version 2 with version 3 plugins", config: "version = 2\n[plugins.\"io.containerd.cri.v1.runtime\"]\nenable_cdi = true\n",
			want: []wantError{{"spec.containerd.config", "declares version = 2 but configures the version 3 plugins"}}},
		{name: "not TOML", config: "[plugins\npassword = \"s3cr3t\"\n",
			want: []wantError{{"spec.containerd.config", "is not valid TOML: line 1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := Spec(hub.Spec{Containerd: hub.Containerd{Config: tc.config}})
			assertErrors(t, errs, tc.want)
			for _, e := range errs {
				if strings.Contains(e.ErrorBody(), "s3cr3t") {
					t.Errorf("the config is printed: %s", e.ErrorBody())
				}
			}
		})
	}
}

func TestSpecFeatureGatesAndMaxPods(t *testing.T) {
	tests := []struct {
		name string
		spec hub.Spec
		want []wantError
	}{
		{name: "known gates", spec: hub.Spec{FeatureGates: map[string]bool{"InstanceIdNodeName": true, "FastImagePull": false}}},
		{name: "gate typo", spec: hub.Spec{FeatureGates: map[string]bool{"InstanceIDNodeName": true}},
			want: []wantError{{"spec.featureGates[InstanceIDNodeName]", "unknown feature gate: must be one of FastImagePull, InstanceIdNodeName; did you mean InstanceIdNodeName?"}}},
		{name: "gate unknown", spec: hub.Spec{FeatureGates: map[string]bool{"Turbo": true}},
			want: []wantError{{"spec.featureGates[Turbo]", "unknown feature gate: must be one of FastImagePull, InstanceIdNodeName"}}},
		{name: "negative max enis", spec: hub.Spec{MaxPods: hub.MaxPodsPolicy{MaxENIs: -1}},
			want: []wantError{{"spec.maxPods.maxENIs", "Invalid value: -1: must be 0 (no limit) or more"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, Spec(tc.spec), tc.want)
		})
	}
}

func TestSpecIdentity(t *testing.T) {
	hash := "sha256:" + strings.Repeat("ab", 32)
	tests := []struct {
		name string
		spec hub.Spec
		want []wantError
	}{
		{name: "exec credential", spec: hub.Spec{Identity: hub.Identity{Mode: "ExecCredential", Exec: hub.ExecCredential{Env: map[string]string{"AWS_PROFILE": "x"}}}}},
		{name: "token pinned", spec: hub.Spec{Identity: hub.Identity{Mode: "BootstrapToken", BootstrapToken: hub.BootstrapToken{Token: "abcdef.0123456789abcdef", CACertHashes: []string{hash}}}}},
		{name: "token with ca", spec: hub.Spec{Cluster: hub.Cluster{CertificateAuthority: testCA(t)}, Identity: hub.Identity{Mode: "BootstrapToken", BootstrapToken: hub.BootstrapToken{Token: "abcdef.0123456789abcdef"}}}},
		{name: "token unsafe", spec: hub.Spec{Identity: hub.Identity{Mode: "BootstrapToken", BootstrapToken: hub.BootstrapToken{Token: "abcdef.0123456789abcdef", UnsafeSkipCAVerification: true}}}},
		{name: "unknown mode", spec: hub.Spec{Identity: hub.Identity{Mode: "bootstraptoken"}},
			want: []wantError{{"spec.identity.mode", "did you mean BootstrapToken?"}}},
		{name: "bad exec env", spec: hub.Spec{Identity: hub.Identity{Exec: hub.ExecCredential{Env: map[string]string{"A B": "x"}}}},
			want: []wantError{{"spec.identity.exec.env[A B]", "is not a valid environment variable name"}}},
		{name: "token malformed and not echoed", spec: hub.Spec{Identity: hub.Identity{Mode: "BootstrapToken", BootstrapToken: hub.BootstrapToken{Token: "ABCDEF.0123456789abcdef", UnsafeSkipCAVerification: true}}},
			want: []wantError{{"spec.identity.bootstrapToken.token", "Invalid value: must look like abcdef.0123456789abcdef"}}},
		// The token may come from another document: Merged requires it.
		{name: "token missing", spec: hub.Spec{Identity: hub.Identity{Mode: "BootstrapToken", BootstrapToken: hub.BootstrapToken{UnsafeSkipCAVerification: true}}}},
		{name: "bad hash", spec: hub.Spec{Identity: hub.Identity{Mode: "BootstrapToken", BootstrapToken: hub.BootstrapToken{Token: "abcdef.0123456789abcdef", CACertHashes: []string{hash, "sha256:abc"}}}},
			want: []wantError{{"spec.identity.bootstrapToken.caCertHashes[1]", `Invalid value: "sha256:abc": must be sha256:<64 hex digits>`}}},
		{name: "no pin is left to Merged", spec: hub.Spec{Identity: hub.Identity{Mode: "BootstrapToken", BootstrapToken: hub.BootstrapToken{Token: "abcdef.0123456789abcdef"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, Spec(tc.spec), tc.want)
		})
	}
}

// pemDER returns the DER bytes of the first PEM block.
func pemDER(t *testing.T, b []byte) []byte {
	t.Helper()
	block, _ := pem.Decode(b)
	if block == nil {
		t.Fatal("no PEM block")
	}
	return block.Bytes
}
