package bottlerocket

import (
	"encoding/base64"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

func (d *decoder) clusterName(p keyPath, v any) {
	s, ok := d.str(p, v)
	if !ok {
		return
	}
	if !isClusterName(s) {
		d.errorf(p, "%q is not a cluster name: use 1 to 100 letters, digits, - and _, starting with a letter or digit", clip(s))
		return
	}
	d.spec.Cluster.Name = s
	d.record("spec.cluster.name", p)
}

func (d *decoder) apiServer(p keyPath, v any) {
	if s, ok := d.str(p, v); ok {
		d.spec.Cluster.APIServerEndpoint = s
		d.record("spec.cluster.apiServerEndpoint", p)
	}
}

func (d *decoder) clusterCertificate(p keyPath, v any) {
	s, ok := d.str(p, v)
	if !ok {
		return
	}
	ca, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		d.errorf(p, "is not valid base64; give the base64 of the PEM CA bundle (base64 -w0 ca.crt)")
		return
	}
	d.spec.Cluster.CertificateAuthority = ca
	d.record("spec.cluster.certificateAuthority", p)
}

// Authentication modes.
const (
	authModeAWS = "aws"
	authModeTLS = "tls"
)

// authenticationMode maps aws to the default exec credential (left unset)
// and tls to bootstrap-token TLS bootstrapping.
func (d *decoder) authenticationMode(p keyPath, v any) {
	s, ok := d.str(p, v)
	if !ok {
		return
	}
	switch s {
	case authModeAWS:
		d.record("spec.identity.mode", p)
	case authModeTLS:
		d.spec.Identity.Mode = hub.IdentityBootstrapToken
		d.record("spec.identity.mode", p)
	default:
		d.errorf(p, "unsupported value %q; use \"aws\" (IAM authenticator) or \"tls\" (bootstrap token)", clip(s))
	}
}

// bootstrapToken sets the token for TLS bootstrapping; without an explicit
// authentication-mode it selects that mode. The token is never echoed.
func (d *decoder) bootstrapToken(p keyPath, v any) {
	s, ok := d.str(p, v)
	if !ok {
		return
	}
	mode, hasMode := d.siblingString(p, "authentication-mode")
	if hasMode && mode == authModeAWS {
		d.ignore(p, v, `authentication-mode is "aws", so the kubelet authenticates with IAM and the token is unused; set authentication-mode = "tls" to use it`)
		return
	}
	d.spec.Identity.Mode = hub.IdentityBootstrapToken
	d.spec.Identity.BootstrapToken.Token = s
	d.record("spec.identity.bootstrapToken", p)
	d.record("spec.identity.bootstrapToken.token", p)
	if !hasMode {
		d.record("spec.identity.mode", p)
	}
}

// standaloneMode accepts false; true runs the kubelet without a cluster,
// which nodeboot does not do.
func (d *decoder) standaloneMode(p keyPath, v any) {
	b, ok := d.boolean(p, v)
	if ok && b {
		d.errorf(p, "standalone mode (a kubelet without an API server) is not supported: nodeboot always joins a cluster; remove it or set it to false")
	}
}

// cloudProvider accepts external, what nodeboot always runs with.
func (d *decoder) cloudProvider(p keyPath, v any) {
	s, ok := d.str(p, v)
	if !ok {
		return
	}
	switch s {
	case "external":
	case "aws", "":
		d.ignore(p, v, "nodeboot always runs the kubelet with --cloud-provider=external (the in-tree AWS provider was removed in Kubernetes 1.27)")
	default:
		d.errorf(p, "unsupported value %q; use \"external\"", clip(s))
	}
}

// hostnameOverrideSource picks the node name: the EC2 private DNS name
// (nodeboot's default) or the instance ID (feature gate InstanceIdNodeName).
func (d *decoder) hostnameOverrideSource(p keyPath, v any) {
	s, ok := d.str(p, v)
	if !ok {
		return
	}
	var instanceID bool
	switch s {
	case "private-dns-name":
	case "instance-id":
		instanceID = true
	default:
		d.errorf(p, "unsupported value %q; use \"private-dns-name\" or \"instance-id\"", clip(s))
		return
	}
	if d.spec.FeatureGates == nil {
		d.spec.FeatureGates = map[string]bool{}
	}
	d.spec.FeatureGates[FeatureInstanceIDNodeName] = instanceID
	d.record("spec.featureGates["+FeatureInstanceIDNodeName+"]", p)
}

// FeatureInstanceIDNodeName is the nodeadm feature gate that names nodes by
// instance ID; hostname-override-source = "instance-id" turns it on.
const FeatureInstanceIDNodeName = "InstanceIdNodeName"

// siblingString returns the string value of the key next to p, if any.
func (d *decoder) siblingString(p keyPath, key string) (string, bool) {
	v, ok := d.siblings[key]
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	return s, ok
}
