package validate

import (
	"encoding/json"
	"net/url"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// Options tunes Merged.
type Options struct {
	// NodeadmStrict requires what nodeadm requires (apiServerEndpoint,
	// certificateAuthority, cidr, and id for Outposts) instead of
	// discovering it: the config came only from node.eks.aws/v1alpha1
	// documents, which must mean what they mean to nodeadm.
	NodeadmStrict bool
}

// Merged checks the spec obtained by merging every source: what the node
// cannot join without, and rules across fields that may come from
// different documents. It does not repeat Spec's format checks.
//
// spec.cluster.name is always required. With NodeadmStrict, endpoint, CA
// and CIDR are required too. Otherwise they are required only when they
// cannot be discovered, that is when the name is missing; DiscoveryNeeded
// lists what the caller must fetch with eks:DescribeCluster.
func Merged(spec hub.Spec, opts Options) field.ErrorList {
	cluster := specPath.Child("cluster")
	var errs field.ErrorList
	switch {
	case opts.NodeadmStrict:
		errs = append(errs, nodeadmRequired(spec, cluster)...)
		errs = append(errs, outpostNeedsID(spec.Cluster, cluster)...)
	case spec.Cluster.Name == "":
		errs = append(errs, field.Required(cluster.Child("name"), "set it to the name of the EKS cluster to join"))
		for _, p := range undiscovered(spec) {
			errs = append(errs, field.Required(p, "set it, or set spec.cluster.name so that it can be looked up with eks:DescribeCluster"))
		}
	}
	errs = append(errs, ipFamilyMatchesCIDR(spec.Cluster, cluster)...)
	errs = append(errs, identityComplete(spec, specPath.Child("identity"))...)
	return errs
}

// DiscoveryNeeded returns the field paths ("spec.cluster.cidr", ...) of the
// cluster fields that are missing and must be looked up with
// eks:DescribeCluster before rendering. It returns nil when nothing is
// missing or when spec.cluster.name is missing (then nothing can be looked
// up and Merged reports the fields as required). In BootstrapToken mode with
// a CA pin or unsafeSkipCAVerification, the CA comes from
// kube-public/cluster-info instead and is not listed.
func DiscoveryNeeded(spec hub.Spec) []string {
	if spec.Cluster.Name == "" {
		return nil
	}
	var out []string
	for _, p := range undiscovered(spec) {
		out = append(out, p.String())
	}
	return out
}

// nodeadmRequired reports what nodeadm's validation requires.
func nodeadmRequired(spec hub.Spec, cluster *field.Path) field.ErrorList {
	const why = "node.eks.aws/v1alpha1 requires it (use apiVersion nodeboot.io/v1alpha1 to have it discovered with eks:DescribeCluster)"
	var errs field.ErrorList
	c := spec.Cluster
	if c.Name == "" {
		errs = append(errs, field.Required(cluster.Child("name"), "set it to the name of the EKS cluster to join"))
	}
	if c.APIServerEndpoint == "" {
		errs = append(errs, field.Required(cluster.Child("apiServerEndpoint"), why))
	}
	if len(c.CertificateAuthority) == 0 {
		errs = append(errs, field.Required(cluster.Child("certificateAuthority"), why))
	}
	if c.CIDR == "" {
		errs = append(errs, field.Required(cluster.Child("cidr"), why))
	}
	return errs
}

// undiscovered returns the paths of the DescribeCluster-able fields that
// are empty and needed. As with AL2's bootstrap.sh, a missing endpoint or
// CA triggers the lookup; a missing service CIDR alone does not (IPv4
// cluster DNS then follows the VPC-CIDR rule) unless the cluster is IPv6;
// an Outposts node without a cluster id looks it up too.
func undiscovered(spec hub.Spec) []*field.Path {
	cluster := specPath.Child("cluster")
	c := spec.Cluster
	var out []*field.Path
	if c.APIServerEndpoint == "" {
		out = append(out, cluster.Child("apiServerEndpoint"))
	}
	if len(c.CertificateAuthority) == 0 && !caFromClusterInfo(spec.Identity) {
		out = append(out, cluster.Child("certificateAuthority"))
	}
	describing := len(out) > 0
	if c.CIDR == "" && !HasClusterDNS(spec) && (describing || c.IPFamily == "ipv6") {
		out = append(out, cluster.Child("cidr"))
	}
	if c.EnableOutpost != nil && *c.EnableOutpost && c.ID == "" {
		out = append(out, cluster.Child("id"))
	}
	return out
}

// HasClusterDNS reports whether kubelet.config sets clusterDNS; then the
// service CIDR is not needed (bootstrap.sh --dns-cluster-ip, Bottlerocket
// cluster-dns-ip, or a NodeConfig drop-in), and nothing is looked up for it.
func HasClusterDNS(spec hub.Spec) bool {
	raw, ok := spec.Kubelet.Config["clusterDNS"]
	if !ok {
		return false
	}
	var dns []string
	return json.Unmarshal(raw, &dns) == nil && len(dns) > 0
}

// caFromClusterInfo reports whether the CA is read (pinned or not) from
// kube-public/cluster-info during token bootstrap.
func caFromClusterInfo(id hub.Identity) bool {
	return id.Mode == hub.IdentityBootstrapToken &&
		(len(id.BootstrapToken.CACertHashes) > 0 || id.BootstrapToken.UnsafeSkipCAVerification)
}

// ipFamilyMatchesCIDR reports an explicit ipFamily that contradicts the
// service CIDR (bootstrap.sh rejects --ip-family ipv4 with an IPv6 CIDR).
func ipFamilyMatchesCIDR(c hub.Cluster, fld *field.Path) field.ErrorList {
	family := cidrFamily(c.CIDR)
	if c.IPFamily == "" || family == "" || c.IPFamily == family {
		return nil
	}
	return field.ErrorList{field.Invalid(fld.Child("ipFamily"), c.IPFamily,
		"contradicts cidr "+c.CIDR+", which is "+family+"; remove ipFamily (the CIDR decides) or fix the CIDR")}
}

// identityComplete checks the identity settings as a whole.
func identityComplete(spec hub.Spec, fld *field.Path) field.ErrorList {
	id := spec.Identity
	bt := fld.Child("bootstrapToken")
	var errs field.ErrorList
	if id.Mode == hub.IdentityBootstrapToken {
		if id.BootstrapToken.Token == "" {
			errs = append(errs, field.Required(bt.Child("token"), "needed when mode is BootstrapToken; create one with kubeadm token create"))
		}
		errs = append(errs, tokenOverTLS(spec.Cluster.APIServerEndpoint, specPath.Child("cluster", "apiServerEndpoint"))...)
		return append(errs, bootstrapTokenPinned(spec, bt)...)
	}
	if id.BootstrapToken.Token != "" || len(id.BootstrapToken.CACertHashes) > 0 {
		errs = append(errs, field.Invalid(fld.Child("mode"), modeOrDefault(id.Mode),
			"bootstrapToken is set but would be ignored; set mode: BootstrapToken or remove bootstrapToken"))
	}
	return errs
}

// tokenOverTLS refuses a plain-HTTP endpoint in BootstrapToken mode: the
// kubelet would send the bootstrap token in clear, and the cluster CA could
// not be discovered safely. (An endpoint that is not a URL is reported by
// the field's own check.)
func tokenOverTLS(endpoint string, fld *field.Path) field.ErrorList {
	if u, err := url.Parse(endpoint); err != nil || u.Scheme != "http" {
		return nil
	}
	return field.ErrorList{field.Invalid(fld, endpoint,
		"must be https:// in BootstrapToken mode: over plain HTTP the bootstrap token would travel in clear")}
}

// modeOrDefault names the identity mode in effect.
func modeOrDefault(mode string) string {
	if mode == "" {
		return hub.IdentityExecCredential
	}
	return mode
}
