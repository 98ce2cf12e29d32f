package bootstrapsh

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/validate/suggest"
)

// Field paths of the values a bootstrap.sh call sets.
var (
	pathClusterName     = field.NewPath("spec", "cluster", "name").String()
	pathEndpoint        = field.NewPath("spec", "cluster", "apiServerEndpoint").String()
	pathCA              = field.NewPath("spec", "cluster", "certificateAuthority").String()
	pathCIDR            = field.NewPath("spec", "cluster", "cidr").String()
	pathIPFamily        = field.NewPath("spec", "cluster", "ipFamily").String()
	pathEnableOutpost   = field.NewPath("spec", "cluster", "enableOutpost").String()
	pathClusterID       = field.NewPath("spec", "cluster", "id").String()
	pathMaxPodsSet      = field.NewPath("spec", "maxPods", "set").String()
	pathStorageStrategy = field.NewPath("spec", "instance", "localStorage", "strategy").String()
	pathContainerd      = field.NewPath("spec", "containerd").String()
)

func kubeletConfigPath(key string) string {
	return field.NewPath("spec", "kubelet", "config").Key(key).String()
}

func kubeletFlagPath(i int) string {
	return field.NewPath("spec", "kubelet", "flags").Index(i).String()
}

// specBuilder converts an invocation into a hub.Spec.
type specBuilder struct {
	*argReader
	inv       invocation
	spec      hub.Spec
	positions diag.Positions
}

// opt returns an option that was given with a usable value.
func (b *specBuilder) opt(flag string) (setting, bool) {
	s, ok := b.inv.options[flag]
	if !ok || s.unknown || s.value == "" { // ${VAR:-default}: empty means absent
		return setting{}, false
	}
	return s, true
}

func (b *specBuilder) at(path string, pos diag.Position) {
	if !pos.IsZero() {
		b.positions[path] = pos
	}
}

func (b *specBuilder) setKubeletConfig(key string, value any, pos diag.Position) {
	raw, err := json.Marshal(value)
	if err != nil {
		b.errorf(pos, kubeletConfigPath(key), "cannot encode kubelet config %s: %v", key, err)
		return
	}
	if b.spec.Kubelet.Config == nil {
		b.spec.Kubelet.Config = map[string]json.RawMessage{}
	}
	b.spec.Kubelet.Config[key] = raw
	b.at(kubeletConfigPath(key), pos)
}

// build applies every option with its exact bootstrap.sh meaning.
func (b *specBuilder) build() {
	if b.inv.hasName && !b.inv.clusterName.unknown && b.inv.clusterName.value != "" {
		b.spec.Cluster.Name = b.inv.clusterName.value
		b.at(pathClusterName, b.inv.clusterName.pos)
	}
	if s, ok := b.opt(flagAPIServerEndpoint); ok {
		b.spec.Cluster.APIServerEndpoint = s.value
		b.at(pathEndpoint, s.pos)
	}
	b.certificateAuthority()
	b.serviceNetwork()
	b.clusterDNS()
	b.useMaxPods()
	b.kubeletExtraArgs()
	b.outpost()
	b.localDisks()
	b.containerRuntime()
	b.unsupportedOptions()
}

func (b *specBuilder) certificateAuthority() {
	s, ok := b.opt(flagB64ClusterCA)
	if !ok {
		return
	}
	compact := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s.value)
	ca, err := base64.StdEncoding.DecodeString(compact)
	if err != nil {
		msg := fmt.Sprintf("%s is not valid base64 (%v)", s.label(flagB64ClusterCA), err)
		if strings.Contains(s.value, "-----BEGIN") {
			msg += "; it looks like a PEM certificate: give the base64 encoding of the whole PEM text"
		}
		b.errorf(s.pos, pathCA, "%s", msg)
		return
	}
	b.spec.Cluster.CertificateAuthority = ca
	b.at(pathCA, s.pos)
}

// serviceNetwork applies --ip-family, --service-ipv6-cidr and
// --service-ipv4-cidr: an IPv6 service CIDR makes the cluster IPv6.
func (b *specBuilder) serviceNetwork() {
	family := ""
	if s, ok := b.opt(flagIPFamily); ok {
		family = strings.ToLower(s.value)
		if family != "ipv4" && family != "ipv6" {
			b.errorf(s.pos, pathIPFamily, "%s %s: must be ipv4 or ipv6", s.label(flagIPFamily), shellQuote(s.value))
			family = ""
		} else {
			b.spec.Cluster.IPFamily = family
			b.at(pathIPFamily, s.pos)
		}
	}
	v6, has6 := b.opt(flagServiceIPv6CIDR)
	v4, has4 := b.opt(flagServiceIPv4CIDR)
	if has6 {
		switch {
		case !isCIDROf(v6.value, true):
			b.errorf(v6.pos, pathCIDR, "%s %s is not an IPv6 CIDR such as fd30:1c53:5f8a::/108", v6.label(flagServiceIPv6CIDR), shellQuote(v6.value))
		case family == "ipv4":
			b.errorf(v6.pos, pathCIDR, "%s makes the cluster IPv6, but %s says ipv4; bootstrap.sh refuses this combination", v6.label(flagServiceIPv6CIDR), flagIPFamily)
		default:
			b.spec.Cluster.CIDR = v6.value
			b.at(pathCIDR, v6.pos)
		}
		if has4 {
			b.warnf(v4.pos, pathCIDR, "%s is ignored: %s makes the cluster IPv6, and bootstrap.sh uses the IPv4 service CIDR only for IPv4 clusters", v4.label(flagServiceIPv4CIDR), flagServiceIPv6CIDR)
		}
		return
	}
	if !has4 {
		return
	}
	switch {
	case !isCIDROf(v4.value, false):
		b.errorf(v4.pos, pathCIDR, "%s %s is not an IPv4 CIDR such as 10.100.0.0/16", v4.label(flagServiceIPv4CIDR), shellQuote(v4.value))
	case family == "ipv6":
		b.warnf(v4.pos, pathCIDR, "%s is ignored: %s is ipv6, and bootstrap.sh uses the IPv4 service CIDR only for IPv4 clusters", v4.label(flagServiceIPv4CIDR), flagIPFamily)
	default:
		b.spec.Cluster.CIDR = v4.value
		b.at(pathCIDR, v4.pos)
	}
}

// isCIDROf reports a CIDR of the given family.
func isCIDROf(s string, ipv6 bool) bool {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return false
	}
	return p.Addr().Is6() == ipv6 && !p.Addr().Is4In6()
}

// clusterDNS applies --dns-cluster-ip, a comma-separated list of
// addresses written as the kubelet's clusterDNS. bootstrap.sh splits it on
// commas and passes every piece on; the kubelet skips a piece that is not
// an IP address (an empty one after a stray comma, one with a blank), and
// so the AL2 node boots. nodeboot leaves such pieces out, warning; a list
// with no address at all is an error.
func (b *specBuilder) clusterDNS() {
	s, ok := b.opt(flagDNSClusterIP)
	if !ok {
		return
	}
	var addrs, skipped []string
	for a := range strings.SplitSeq(s.value, ",") {
		if _, err := netip.ParseAddr(a); err != nil {
			skipped = append(skipped, shellQuote(a))
			continue
		}
		addrs = append(addrs, a)
	}
	field := kubeletConfigPath("clusterDNS")
	if len(addrs) == 0 {
		b.errorf(s.pos, field, "%s: %s is not an IP address", s.label(flagDNSClusterIP), strings.Join(skipped, ", "))
		return
	}
	if len(skipped) > 0 {
		b.warnf(s.pos, field, "%s: %s is not an IP address and is left out; the kubelet skips it on an AL2 node too", s.label(flagDNSClusterIP), strings.Join(skipped, ", "))
	}
	b.setKubeletConfig("clusterDNS", addrs, s.pos)
}

// boolValue reads a bootstrap.sh boolean: only the exact string "true" is
// true.
func (b *specBuilder) boolValue(flag string, s setting) bool {
	if s.value != "true" && s.value != "false" {
		b.warnf(s.pos, "", "%s %s is neither true nor false; bootstrap.sh takes anything but \"true\" as false, and so does nodeboot", s.label(flag), shellQuote(s.value))
	}
	return s.value == "true"
}

func (b *specBuilder) useMaxPods() {
	s, ok := b.opt(flagUseMaxPods)
	if !ok {
		return
	}
	v := b.boolValue(flagUseMaxPods, s)
	b.spec.MaxPods.Set = &v
	b.at(pathMaxPodsSet, s.pos)
}

func (b *specBuilder) outpost() {
	if s, ok := b.opt(flagEnableLocalOutpost); ok {
		v := b.boolValue(flagEnableLocalOutpost, s)
		b.spec.Cluster.EnableOutpost = &v
		b.at(pathEnableOutpost, s.pos)
	}
	if s, ok := b.opt(flagClusterID); ok {
		b.spec.Cluster.ID = s.value
		b.at(pathClusterID, s.pos)
	}
}

// localDisksStrategies maps setup-local-disks modes to NodeConfig
// strategies; "none" does nothing.
var localDisksStrategies = map[string]string{"raid0": "RAID0", "raid10": "RAID10", "mount": "Mount", "none": ""}

func (b *specBuilder) localDisks() {
	s, ok := b.opt(flagLocalDisks)
	if !ok {
		return
	}
	strategy, known := localDisksStrategies[s.value]
	if !known {
		msg := fmt.Sprintf("%s %s: must be raid0, raid10, mount or none", s.label(flagLocalDisks), shellQuote(s.value))
		if sug := suggest.Closest(s.value, []string{"raid0", "raid10", "mount", "none"}); sug != "" {
			msg += fmt.Sprintf("; did you mean %s?", sug)
		}
		b.errorf(s.pos, pathStorageStrategy, "%s", msg)
		return
	}
	if strategy != "" {
		b.spec.Instance.LocalStorage.Strategy = strategy
		b.at(pathStorageStrategy, s.pos)
	}
}

func (b *specBuilder) containerRuntime() {
	s, ok := b.opt(flagContainerRuntime)
	if !ok || s.value == "containerd" {
		return
	}
	if s.value == "dockerd" {
		b.errorf(s.pos, "", "%s dockerd is not supported: Kubernetes removed dockershim in 1.24 and nodeboot runs the kubelet on containerd only; remove the option (containerd is the default) or set it to containerd", s.label(flagContainerRuntime))
		return
	}
	msg := fmt.Sprintf("%s %s is not a container runtime bootstrap.sh knows; nodeboot supports containerd only", s.label(flagContainerRuntime), shellQuote(s.value))
	if sug := suggest.Closest(s.value, []string{"containerd", "dockerd"}); sug == "containerd" {
		msg += "; did you mean containerd?"
	}
	b.errorf(s.pos, "", "%s", msg)
}
