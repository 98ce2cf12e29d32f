package validate

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeboot/nodeboot/internal/config/clusterdns"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// IP families accepted in spec.cluster.ipFamily.
const (
	IPFamilyIPv4 = "ipv4"
	IPFamilyIPv6 = "ipv6"
)

// clusterValues checks the form of the cluster fields that are set.
func clusterValues(c hub.Cluster, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c.APIServerEndpoint != "" {
		if detail := endpointProblem(c.APIServerEndpoint); detail != "" {
			e := field.Invalid(fld.Child("apiServerEndpoint"), c.APIServerEndpoint, detail)
			if schemeless(c.APIServerEndpoint) {
				// nodeadm writes it to the kubeconfig as it is, and
				// client-go reaches a host with no scheme by https.
				e = e.WithOrigin(diag.OriginNodeadmAccepts)
			}
			errs = append(errs, e)
		}
	}
	if c.CertificateAuthority != nil {
		if detail := CertificateAuthorityProblem(c.CertificateAuthority); detail != "" {
			// nodeadm writes whatever the field decodes to as the CA file.
			errs = append(errs, field.Invalid(fld.Child("certificateAuthority"), field.OmitValueType{}, detail).WithOrigin(diag.OriginNodeadmAccepts))
		}
	}
	if c.CIDR != "" {
		if detail, accepted := cidrProblem(c.CIDR); detail != "" {
			e := field.Invalid(fld.Child("cidr"), c.CIDR, detail)
			if accepted { // nodeadm and bootstrap.sh derive the DNS address from the text
				e = e.WithOrigin(diag.OriginNodeadmAccepts)
			}
			errs = append(errs, e)
		}
	}
	if c.IPFamily != "" && c.IPFamily != IPFamilyIPv4 && c.IPFamily != IPFamilyIPv6 {
		errs = append(errs, field.NotSupported(fld.Child("ipFamily"), c.IPFamily, []string{IPFamilyIPv4, IPFamilyIPv6}))
	}
	return errs
}

// schemeless reports whether an endpoint is a bare host[:port] with no
// scheme (example.com, ABC.gr7.us-west-2.eks.amazonaws.com:443).
func schemeless(s string) bool {
	u, err := url.Parse("https://" + s)
	return !strings.Contains(s, "://") && err == nil && u.Hostname() != "" && (u.Path == "" || u.Path == "/") &&
		u.RawQuery == "" && u.Fragment == "" && u.User == nil
}

// endpointProblem says what is wrong with an API server URL, or "".
func endpointProblem(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Sprintf("is not a URL (%v); write it like https://ABC.gr7.us-west-2.eks.amazonaws.com", unwrapURLError(err))
	}
	switch {
	case u.Scheme == "" || (u.Host == "" && u.Opaque != ""):
		return "must be an absolute URL with a scheme; write it like https://" + strings.TrimPrefix(s, "//")
	case u.Scheme != "https" && u.Scheme != "http":
		return fmt.Sprintf("scheme %q is not supported; use https://", u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return "has no host; write it like https://ABC.gr7.us-west-2.eks.amazonaws.com"
	case u.Path != "" && u.Path != "/":
		return fmt.Sprintf("must not have a path (%q); give only scheme, host and optional port", u.Path)
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return "must not have a query or fragment; give only scheme, host and optional port"
	case u.User != nil:
		return "must not contain user information; credentials come from the node's identity"
	}
	return ""
}

// unwrapURLError drops the "parse <url>:" prefix url.Parse adds.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// cidrProblem says what is wrong with a service CIDR, or "".
func cidrProblem(s string) (detail string, nodeadmAccepts bool) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		if _, aerr := netip.ParseAddr(s); aerr == nil {
			return "has no prefix length; write it like 10.100.0.0/16", false
		}
		return "is not a CIDR; write it like 10.100.0.0/16 or fd00:10:96::/108", false
	}
	dns, err := clusterdns.Address(s, nil)
	if err != nil {
		return err.Error(), false
	}
	want, inside := clusterdns.InsideCIDR(s)
	switch {
	case p.Masked() != p && inside:
		return fmt.Sprintf("is not a network address (host bits are set); did you mean %s?", p.Masked()), true
	case p.Masked() != p:
		return fmt.Sprintf("is not a network address (host bits are set): the cluster DNS address is %s, derived from the text as nodeadm and bootstrap.sh do; did you mean %s (cluster DNS %s)?", dns, p.Masked(), want), true
	case inside:
		return "", false
	}
	return fmt.Sprintf("has no room for the cluster DNS address (the network address + 10): nodeadm and bootstrap.sh derive %s, outside the range; EKS service CIDRs are /12 to /24 (IPv4) or /108 (IPv6)", dns), true
}

// cidrFamily returns the IP family of a valid CIDR, or "".
func cidrFamily(s string) string {
	p, err := netip.ParsePrefix(s)
	switch {
	case err != nil:
		return ""
	case p.Addr().Is4():
		return IPFamilyIPv4
	default:
		return IPFamilyIPv6
	}
}

// outpostNeedsID reports enableOutpost: true without a cluster id.
func outpostNeedsID(c hub.Cluster, fld *field.Path) field.ErrorList {
	if c.EnableOutpost != nil && *c.EnableOutpost && c.ID == "" {
		return field.ErrorList{field.Required(fld.Child("id"),
			"needed when enableOutpost is true; set it to the cluster id shown by aws eks describe-cluster")}
	}
	return nil
}
