package agent

import (
	"fmt"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/validate"
)

// DescribeWins says which cluster fields an eks:DescribeCluster answer
// replaces although the config sets them. bootstrap.sh describes the
// cluster when its endpoint or CA argument is missing, and then takes the
// endpoint, the CA, the service CIDR and the cluster id from the answer,
// overwriting what its other arguments said (legacy-formats.md §A.3).
// nodeboot does the same for the fields whose value came from bootstrap.sh
// arguments; values from NodeConfig or Bottlerocket documents are kept and
// only missing ones are filled in.
type DescribeWins struct {
	Endpoint, CA, CIDR, ID bool
}

// DescribeWins finds, for every cluster field, the document that set it
// last (the one whose value the merge kept) and reports the fields that
// came from bootstrap.sh.
func (in Input) DescribeWins() DescribeWins {
	var last struct{ endpoint, ca, cidr, id string }
	for _, f := range in.Fragments {
		c, format := f.Spec.Cluster, f.Source.Format
		if c.APIServerEndpoint != "" {
			last.endpoint = format
		}
		if len(c.CertificateAuthority) > 0 {
			last.ca = format
		}
		if c.CIDR != "" {
			last.cidr = format
		}
		if c.ID != "" {
			last.id = format
		}
	}
	return DescribeWins{
		Endpoint: last.endpoint == FormatBootstrapSh,
		CA:       last.ca == FormatBootstrapSh,
		CIDR:     last.cidr == FormatBootstrapSh,
		ID:       last.id == FormatBootstrapSh,
	}
}

// applyClusterInfo fills in what the config leaves empty and, where wins
// says so, replaces what bootstrap.sh arguments set. An empty answer never
// replaces a value. Like bootstrap.sh, a local cluster on Outposts (an
// outpost ARN in the answer) turns Outposts mode on unless the user said
// otherwise.
func applyClusterInfo(c *hub.Cluster, info ClusterInfo, wins DescribeWins) {
	take := func(have *string, answer string, win bool) {
		if answer != "" && (*have == "" || win) {
			*have = answer
		}
	}
	take(&c.ID, info.ID, wins.ID)
	if c.EnableOutpost == nil && info.OutpostARN != "" {
		on := true
		c.EnableOutpost = &on
	}
	take(&c.APIServerEndpoint, info.Endpoint, wins.Endpoint)
	if len(info.CA) > 0 && (len(c.CertificateAuthority) == 0 || wins.CA) {
		c.CertificateAuthority = info.CA
	}
	family := c.IPFamily
	if family == "" {
		family = info.IPFamily
	}
	cidr := info.ServiceIPv4CIDR
	if family == "ipv6" {
		cidr = info.ServiceIPv6CIDR
	}
	take(&c.CIDR, cidr, wins.CIDR)
}

// ConversionSpec is the merged spec as a converter must write it to keep
// the node the same: when the config makes the agent describe the cluster,
// the fields the answer will replace (DescribeWins: bootstrap.sh
// arguments) are left out, so that the converted document has them
// discovered too instead of keeping values bootstrap.sh would have
// dropped. The notes say which fields were left out and why. The cluster
// id stays: an answer for a cluster that is not local to an Outpost has
// none to replace it with.
func (in Input) ConversionSpec() (hub.Spec, []string, error) {
	spec, _, err := in.Merged()
	if err != nil || len(validate.DiscoveryNeeded(spec)) == 0 {
		return spec, nil, err
	}
	wins := in.DescribeWins()
	c := &spec.Cluster
	var notes []string
	leave := func(path, flag string, set, win bool, clear func()) {
		if set && win {
			clear()
			notes = append(notes, fmt.Sprintf("%s: left for eks:DescribeCluster: bootstrap.sh replaces %s with the cluster's answer when it describes the cluster (--apiserver-endpoint or --b64-cluster-ca is missing), and the converted document has it discovered the same way", path, flag))
		}
	}
	leave("spec.cluster.apiServerEndpoint", "--apiserver-endpoint", c.APIServerEndpoint != "", wins.Endpoint, func() { c.APIServerEndpoint = "" })
	leave("spec.cluster.certificateAuthority", "--b64-cluster-ca", len(c.CertificateAuthority) > 0, wins.CA, func() { c.CertificateAuthority = nil })
	leave("spec.cluster.cidr", "--service-ipv4-cidr/--service-ipv6-cidr", c.CIDR != "", wins.CIDR, func() { c.CIDR = "" })
	return spec, notes, nil
}
