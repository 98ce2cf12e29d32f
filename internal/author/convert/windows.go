package convert

import (
	"encoding/base64"
	"net/netip"
	"reflect"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// windowsMaxPodsComment explains where Windows max pods come from
// (legacy-formats.md §C).
const windowsMaxPodsComment = `# Max pods: Windows pods get secondary IPv4 addresses of the primary ENI, so the
# node fits IPv4 addresses per ENI - 1 pods (9 on m5.large), x16 with Windows
# prefix delegation (the kubelet default of 110 then applies). Pass --max-pods
# in -KubeletExtraArgs to choose another value.
`

// Windows writes spec as a <powershell> block that runs
// Start-EKSBootstrap.ps1 with -EKSClusterName, -APIServerEndpoint and
// -Base64ClusterCA (only together), -ServiceCIDR (IPv4 only), -DNSClusterIP
// and -KubeletExtraArgs (kubelet config fields that have a flag on Windows,
// then spec.kubelet.flags). Kubelet maxPods is not passed: it is a Linux
// figure, and Windows sizes max pods by its own rule (see
// windowsMaxPodsNote). It returns ErrClusterNameRequired when spec has no
// cluster name.
func Windows(spec hub.Spec) ([]byte, []string, error) {
	if spec.Cluster.Name == "" {
		return nil, nil, ErrClusterNameRequired
	}
	var n notes
	params := []string{"-EKSClusterName " + powershellQuote(spec.Cluster.Name)}
	param := func(name, value string) { params = append(params, "-"+name+" "+powershellQuote(value)) }
	c := spec.Cluster
	switch {
	case c.APIServerEndpoint != "" && len(c.CertificateAuthority) > 0:
		param("APIServerEndpoint", c.APIServerEndpoint)
		param("Base64ClusterCA", base64.StdEncoding.EncodeToString(c.CertificateAuthority))
	case c.APIServerEndpoint != "":
		n.add("spec.cluster.apiServerEndpoint", "Start-EKSBootstrap.ps1 takes it only together with the CA; the script looks both up with Get-EKSCluster")
	case len(c.CertificateAuthority) > 0:
		n.add("spec.cluster.certificateAuthority", "Start-EKSBootstrap.ps1 takes it only together with the endpoint; the script looks both up with Get-EKSCluster")
	}
	if c.CIDR != "" {
		if p, err := netip.ParsePrefix(c.CIDR); err == nil && p.Addr().Is6() {
			n.add("spec.cluster.cidr", "Windows nodes are IPv4-only")
		} else {
			param("ServiceCIDR", c.CIDR)
		}
	}
	if c.IPFamily == "ipv6" {
		n.add("spec.cluster.ipFamily", "Windows nodes are IPv4-only")
	}
	if dns, ok := clusterDNSList(spec.Kubelet.Config, &n); ok {
		param("DNSClusterIP", dns[0])
		if len(dns) > 1 {
			n.add("spec.kubelet.config[clusterDNS]", "Start-EKSBootstrap.ps1 takes one DNS server; only %s is passed", dns[0])
		}
	}
	windowsMaxPodsNote(spec.Kubelet, &n)
	handled := map[string]bool{"clusterDNS": true, "maxPods": true}
	extra := kubeletArgs(spec.Kubelet, argsTarget{script: "Start-EKSBootstrap.ps1", windows: true, handled: handled}, &n)
	if len(extra) > 0 {
		param("KubeletExtraArgs", strings.Join(extra, " "))
	}
	windowsNotes(spec, &n)
	var b strings.Builder
	b.WriteString("<powershell>\n")
	b.WriteString(windowsMaxPodsComment)
	b.WriteString(`[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\Amazon\EKS\Start-EKSBootstrap.ps1"` + "\n")
	b.WriteString("& $EKSBootstrapScriptFile " + strings.Join(params, " `\n  ") + " `\n  3>&1 4>&1 5>&1 6>&1\n")
	b.WriteString("</powershell>\n")
	return []byte(b.String()), n, nil
}

// windowsNotes notes the hub settings Start-EKSBootstrap.ps1 has no parameter for.
func windowsNotes(spec hub.Spec, n *notes) {
	c := spec.Cluster
	if c.EnableOutpost != nil && *c.EnableOutpost {
		n.add("spec.cluster.enableOutpost", "Windows nodes do not support local clusters on Outposts")
	}
	if c.ID != "" {
		n.add("spec.cluster.id", "Start-EKSBootstrap.ps1 has no cluster ID parameter")
	}
	if spec.Containerd.Config != "" || len(spec.Containerd.BaseRuntimeSpec) > 0 {
		n.add("spec.containerd", "Start-EKSBootstrap.ps1 has no containerd configuration parameter")
	}
	if len(spec.Instance.Environment) > 0 {
		n.add("spec.instance.environment", "Start-EKSBootstrap.ps1 has no service environment parameter")
	}
	if !reflect.ValueOf(spec.Instance.LocalStorage).IsZero() {
		n.add("spec.instance.localStorage", "Windows nodes do not set up instance storage")
	}
	if !reflect.ValueOf(spec.Instance.Network).IsZero() {
		n.add("spec.instance.network", "Start-EKSBootstrap.ps1 does not configure name resolution")
	}
	featureGateNotes(spec.FeatureGates, "Start-EKSBootstrap.ps1", n)
	identityNotes(spec.Identity, "Start-EKSBootstrap.ps1", n)
	if spec.MaxPods.Set != nil && !*spec.MaxPods.Set {
		n.add("spec.maxPods.set", "Start-EKSBootstrap.ps1 always sets max pods")
	}
	maxPodsPolicyNotes(spec.MaxPods, "Windows max pods are IPv4 addresses per ENI - 1 (x16 with Windows prefix delegation, a cluster-wide amazon-vpc-cni setting)", n)
}
