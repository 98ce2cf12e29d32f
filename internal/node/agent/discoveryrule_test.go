package agent

import (
	"bytes"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
)

func clusterFragment(format string, c hub.Cluster) Fragment {
	return Fragment{Spec: hub.Spec{Cluster: c}, Source: diag.Source{Format: format}}
}

// TestDescribeClusterAnswerPerFormat: the answer replaces what bootstrap.sh
// arguments said (as bootstrap.sh does) and only fills in the gaps of
// NodeConfig and Bottlerocket documents.
func TestDescribeClusterAnswerPerFormat(t *testing.T) {
	answer := ClusterInfo{Endpoint: "https://answer", CA: []byte("answer-ca"), ServiceIPv4CIDR: "172.20.0.0/16",
		ServiceIPv6CIDR: "fd00:20::/108", IPFamily: "ipv4", ID: "answer-id"}
	given := hub.Cluster{Name: "c", CertificateAuthority: []byte("given-ca"), CIDR: "10.50.0.0/16", ID: "given-id"}
	tests := []struct {
		name      string
		fragments []Fragment
		want      hub.Cluster
	}{
		{name: "bootstrap.sh: the answer replaces every argument",
			fragments: []Fragment{clusterFragment(FormatBootstrapSh, given)},
			want:      hub.Cluster{Name: "c", APIServerEndpoint: "https://answer", CertificateAuthority: []byte("answer-ca"), CIDR: "172.20.0.0/16", ID: "answer-id"}},
		{name: "nodeboot.io NodeConfig: given values stay",
			fragments: []Fragment{clusterFragment("NodeConfig", given)},
			want:      hub.Cluster{Name: "c", APIServerEndpoint: "https://answer", CertificateAuthority: []byte("given-ca"), CIDR: "10.50.0.0/16", ID: "given-id"}},
		{name: "Bottlerocket: given values stay",
			fragments: []Fragment{clusterFragment(FormatBottlerocket, given)},
			want:      hub.Cluster{Name: "c", APIServerEndpoint: "https://answer", CertificateAuthority: []byte("given-ca"), CIDR: "10.50.0.0/16", ID: "given-id"}},
		{name: "NodeConfig part sets the CA, bootstrap.sh the CIDR: only the CIDR is replaced",
			fragments: []Fragment{
				clusterFragment("NodeConfig", hub.Cluster{CertificateAuthority: []byte("given-ca")}),
				clusterFragment(FormatBootstrapSh, hub.Cluster{Name: "c", CIDR: "10.50.0.0/16"}),
			},
			want: hub.Cluster{Name: "c", APIServerEndpoint: "https://answer", CertificateAuthority: []byte("given-ca"), CIDR: "172.20.0.0/16", ID: "answer-id"}},
		{name: "a later NodeConfig part overrides the bootstrap.sh CA: kept",
			fragments: []Fragment{
				clusterFragment(FormatBootstrapSh, hub.Cluster{Name: "c", CertificateAuthority: []byte("sh-ca")}),
				clusterFragment("NodeConfig", hub.Cluster{CertificateAuthority: []byte("given-ca")}),
			},
			want: hub.Cluster{Name: "c", APIServerEndpoint: "https://answer", CertificateAuthority: []byte("given-ca"), CIDR: "172.20.0.0/16", ID: "answer-id"}},
		{name: "bootstrap.sh --ip-family ipv6 takes the IPv6 service CIDR",
			fragments: []Fragment{clusterFragment(FormatBootstrapSh, hub.Cluster{Name: "c", IPFamily: "ipv6"})},
			want:      hub.Cluster{Name: "c", APIServerEndpoint: "https://answer", CertificateAuthority: []byte("answer-ca"), CIDR: "fd00:20::/108", IPFamily: "ipv6", ID: "answer-id"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Fragments: tc.fragments}
			spec, _, err := in.Merged()
			if err != nil {
				t.Fatal(err)
			}
			c := spec.Cluster
			applyClusterInfo(&c, answer, in.DescribeWins())
			if c.Name != tc.want.Name || c.APIServerEndpoint != tc.want.APIServerEndpoint || c.CIDR != tc.want.CIDR ||
				c.ID != tc.want.ID || c.IPFamily != tc.want.IPFamily || !bytes.Equal(c.CertificateAuthority, tc.want.CertificateAuthority) {
				t.Fatalf("cluster = %+v (CA %q)\nwant      %+v (CA %q)", c, c.CertificateAuthority, tc.want, tc.want.CertificateAuthority)
			}
		})
	}
}

// TestDescribeClusterEmptyAnswerKeepsValues: an answer without a value
// (an older cluster without a service CIDR) never blanks a given one.
func TestDescribeClusterEmptyAnswerKeepsValues(t *testing.T) {
	c := hub.Cluster{Name: "c", CIDR: "10.50.0.0/16"}
	applyClusterInfo(&c, ClusterInfo{Endpoint: "https://answer", CA: []byte("ca")}, DescribeWins{Endpoint: true, CA: true, CIDR: true, ID: true})
	if c.CIDR != "10.50.0.0/16" {
		t.Fatalf("CIDR = %q", c.CIDR)
	}
}
