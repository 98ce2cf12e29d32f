package validate

import (
	"slices"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

func TestMerged(t *testing.T) {
	ca := testCA(t)
	full := hub.Cluster{Name: "c", APIServerEndpoint: "https://x", CertificateAuthority: ca, CIDR: "10.100.0.0/16"}
	hash := "sha256:" + strings.Repeat("0", 64)
	tests := []struct {
		name string
		spec hub.Spec
		want []wantError
	}{
		{name: "complete", spec: hub.Spec{Cluster: full}},
		{name: "name only, rest discoverable", spec: hub.Spec{Cluster: hub.Cluster{Name: "c"}}},
		{name: "empty", spec: hub.Spec{}, want: []wantError{
			{"spec.cluster.name", "Required value: set it to the name of the EKS cluster to join"},
			{"spec.cluster.apiServerEndpoint", "set spec.cluster.name so that it can be looked up with eks:DescribeCluster"},
			{"spec.cluster.certificateAuthority", "Required value: set it, or set spec.cluster.name"},
			{"spec.cluster.cidr", "Required value: set it, or set spec.cluster.name"},
		}},
		{name: "name missing, rest given", spec: hub.Spec{Cluster: hub.Cluster{APIServerEndpoint: "https://x", CertificateAuthority: ca, CIDR: "10.100.0.0/16"}},
			want: []wantError{{"spec.cluster.name", "Required value"}}},
		{name: "outpost without id is discovered", spec: hub.Spec{Cluster: hub.Cluster{Name: "c", EnableOutpost: ptr(true)}}},
		{name: "ip family contradicts cidr", spec: hub.Spec{Cluster: hub.Cluster{Name: "c", CIDR: "fd00::/108", IPFamily: "ipv4"}},
			want: []wantError{{"spec.cluster.ipFamily", `Invalid value: "ipv4": contradicts cidr fd00::/108, which is ipv6`}}},
		{name: "ip family agrees", spec: hub.Spec{Cluster: hub.Cluster{Name: "c", CIDR: "fd00::/108", IPFamily: "ipv6"}}},
		{name: "token without mode", spec: hub.Spec{Cluster: full, Identity: hub.Identity{BootstrapToken: hub.BootstrapToken{Token: "abcdef.0123456789abcdef"}}},
			want: []wantError{{"spec.identity.mode", `Invalid value: "ExecCredential": bootstrapToken is set but would be ignored`}}},
		{name: "token mode without token", spec: hub.Spec{Cluster: full, Identity: hub.Identity{Mode: "BootstrapToken"}},
			want: []wantError{{"spec.identity.bootstrapToken.token", "Required value"}}},
		{name: "token mode without pin or ca", spec: hub.Spec{Cluster: hub.Cluster{Name: "c", APIServerEndpoint: "https://x", CIDR: "10.0.0.0/16"},
			Identity: hub.Identity{Mode: "BootstrapToken", BootstrapToken: hub.BootstrapToken{Token: "abcdef.0123456789abcdef"}}},
			want: []wantError{{"spec.identity.bootstrapToken.caCertHashes", "must be pinned"}}},
		{name: "token mode over plain http", spec: hub.Spec{Cluster: hub.Cluster{Name: "c", APIServerEndpoint: "http://10.0.0.10:6443", CertificateAuthority: ca, CIDR: "10.0.0.0/16"},
			Identity: hub.Identity{Mode: "BootstrapToken", BootstrapToken: hub.BootstrapToken{Token: "abcdef.0123456789abcdef"}}},
			want: []wantError{{"spec.cluster.apiServerEndpoint", "must be https:// in BootstrapToken mode"}}},
		{name: "exec credential over plain http is not this rule's business", spec: hub.Spec{Cluster: hub.Cluster{Name: "c", APIServerEndpoint: "http://10.0.0.10:6443", CertificateAuthority: ca, CIDR: "10.0.0.0/16"}}},
		{name: "token mode ca from cluster-info", spec: hub.Spec{Cluster: hub.Cluster{APIServerEndpoint: "https://x", CIDR: "10.0.0.0/16"},
			Identity: hub.Identity{Mode: "BootstrapToken", BootstrapToken: hub.BootstrapToken{Token: "abcdef.0123456789abcdef", CACertHashes: []string{hash}}}},
			want: []wantError{{"spec.cluster.name", "Required value"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, Merged(tc.spec, Options{}), tc.want)
		})
	}
}

func TestMergedNodeadmStrict(t *testing.T) {
	ca := testCA(t)
	tests := []struct {
		name string
		spec hub.Spec
		want []wantError
	}{
		{name: "complete", spec: hub.Spec{Cluster: hub.Cluster{Name: "c", APIServerEndpoint: "https://x", CertificateAuthority: ca, CIDR: "10.100.0.0/16"}}},
		{name: "name only is not enough for nodeadm", spec: hub.Spec{Cluster: hub.Cluster{Name: "c"}}, want: []wantError{
			{"spec.cluster.apiServerEndpoint", "node.eks.aws/v1alpha1 requires it"},
			{"spec.cluster.certificateAuthority", "node.eks.aws/v1alpha1 requires it"},
			{"spec.cluster.cidr", "use apiVersion nodeboot.io/v1alpha1 to have it discovered"},
		}},
		{name: "outpost without id", spec: hub.Spec{Cluster: hub.Cluster{Name: "c", APIServerEndpoint: "https://x", CertificateAuthority: ca, CIDR: "10.100.0.0/16", EnableOutpost: ptr(true)}},
			want: []wantError{{"spec.cluster.id", "needed when enableOutpost is true"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, Merged(tc.spec, Options{NodeadmStrict: true}), tc.want)
		})
	}
}

func TestDiscoveryNeeded(t *testing.T) {
	hash := "sha256:" + strings.Repeat("0", 64)
	tests := []struct {
		name string
		spec hub.Spec
		want []string
	}{
		{name: "nothing missing", spec: hub.Spec{Cluster: hub.Cluster{Name: "c", APIServerEndpoint: "https://x", CertificateAuthority: []byte("x"), CIDR: "10.0.0.0/16"}}},
		{name: "no name, cannot discover", spec: hub.Spec{}},
		{name: "name only", spec: hub.Spec{Cluster: hub.Cluster{Name: "c"}},
			want: []string{"spec.cluster.apiServerEndpoint", "spec.cluster.certificateAuthority", "spec.cluster.cidr"}},
		{name: "cidr missing alone: VPC rule, no lookup", spec: hub.Spec{Cluster: hub.Cluster{Name: "c", APIServerEndpoint: "https://x", CertificateAuthority: []byte("x")}}},
		{name: "cidr missing on IPv6", spec: hub.Spec{Cluster: hub.Cluster{Name: "c", APIServerEndpoint: "https://x", CertificateAuthority: []byte("x"), IPFamily: "ipv6"}},
			want: []string{"spec.cluster.cidr"}},
		{name: "outpost id missing", spec: hub.Spec{Cluster: hub.Cluster{Name: "c", APIServerEndpoint: "https://x", CertificateAuthority: []byte("x"), CIDR: "10.0.0.0/16", EnableOutpost: ptr(true)}},
			want: []string{"spec.cluster.id"}},
		{name: "ca from cluster-info", spec: hub.Spec{Cluster: hub.Cluster{Name: "c"},
			Identity: hub.Identity{Mode: "BootstrapToken", BootstrapToken: hub.BootstrapToken{CACertHashes: []string{hash}}}},
			want: []string{"spec.cluster.apiServerEndpoint", "spec.cluster.cidr"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DiscoveryNeeded(tc.spec); !slices.Equal(got, tc.want) {
				t.Errorf("DiscoveryNeeded() = %q, want %q", got, tc.want)
			}
		})
	}
}
