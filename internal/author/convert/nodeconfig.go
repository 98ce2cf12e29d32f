package convert

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/netip"
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2"

	nbv1alpha1 "github.com/nodeboot/nodeboot/api/nodeboot/v1alpha1"
	eksv1alpha1 "github.com/nodeboot/nodeboot/api/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/config/clusterdns"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
	"github.com/nodeboot/nodeboot/internal/config/legacy/eksctlal2"
	"github.com/nodeboot/nodeboot/internal/config/validate"
)

// NodeConfig writes spec as a MIME document with one
// application/node.eks.aws part. The part is node.eks.aws/v1alpha1 when
// nodeadm can read it; when spec needs nodeboot's extensions (identity,
// maxPods, cluster.ipFamily) or leaves apiServerEndpoint,
// certificateAuthority or cidr to eks:DescribeCluster, it is
// nodeboot.io/v1alpha1 and the returned notes say why. Only set fields are
// written, map keys sorted. The document decodes back (userdata.Split,
// decode.NodeConfig) to the same spec.
func NodeConfig(spec hub.Spec) ([]byte, []string, error) {
	body, notes, err := NodeConfigYAML(spec)
	if err != nil {
		return nil, notes, err
	}
	doc, err := mimeDocument(ContentTypeNodeConfig, body)
	return doc, notes, err
}

// NodeConfigYAML writes spec as one NodeConfig YAML document, choosing the
// apiVersion as NodeConfig does.
func NodeConfigYAML(spec hub.Spec) ([]byte, []string, error) {
	var n notes
	apiVersion := nodeConfigAPIVersion(spec, &n)
	spec.Kubelet.Config = keepClusterDNS(spec, &n)
	spec.Cluster.CIDR = networkAddress(spec.Cluster.CIDR, &n)
	spec.Kubelet.Flags = acceptedFlags(spec.Kubelet.Flags, &n)
	spec.Containerd.Config = al2Imports(spec.Containerd, &n)
	if spec.Kubelet.EksctlIMDSLabels {
		n.add("spec.kubelet.flags", "eksctl's AL2 script also labels the node %s and %s from instance metadata at boot; a NodeConfig cannot say so: the converted node will not carry them", eksctlal2.LabelLifecycle, eksctlal2.LabelInstanceID)
	}
	body, err := NodeConfigYAMLAs(apiVersion, spec)
	return body, n, err
}

// NodeConfigYAMLAs writes spec as one NodeConfig YAML document of the given
// apiVersion, whatever it holds: a node.eks.aws/v1alpha1 drop-in may leave
// the cluster to another document, as nodeadm merges them before checking.
func NodeConfigYAMLAs(apiVersion string, spec hub.Spec) ([]byte, error) {
	root := newMapping()
	root.str("apiVersion", apiVersion)
	root.str("kind", eksv1alpha1.Kind)
	specNode, err := nodeConfigSpec(spec)
	if err != nil {
		return nil, err
	}
	root.set("spec", specNode.node)
	return encodeYAML(root.node)
}

// nodeConfigAPIVersion picks the group and notes why nodeadm's is not
// enough.
func nodeConfigAPIVersion(spec hub.Spec, n *notes) string {
	const why = "written as nodeboot.io/v1alpha1, which nodeadm cannot read"
	c := spec.Cluster
	if !reflect.ValueOf(spec.Identity).IsZero() {
		n.add("spec.identity", "is a nodeboot extension; %s", why)
	}
	if !reflect.ValueOf(spec.MaxPods).IsZero() {
		n.add("spec.maxPods", "is a nodeboot extension; %s", why)
	}
	if c.IPFamily != "" {
		n.add("spec.cluster.ipFamily", "is a nodeboot extension; %s", why)
	}
	for _, missing := range []struct {
		path  string
		empty bool
	}{
		{"spec.cluster.name", c.Name == ""},
		{"spec.cluster.apiServerEndpoint", c.APIServerEndpoint == ""},
		{"spec.cluster.certificateAuthority", len(c.CertificateAuthority) == 0},
		{"spec.cluster.cidr", c.CIDR == ""},
	} {
		if missing.empty {
			n.add(missing.path, "is not set; nodeadm requires it (nodeboot looks it up with eks:DescribeCluster); %s", why)
		}
	}
	if len(*n) > 0 {
		return nbv1alpha1.APIVersion
	}
	return eksv1alpha1.APIVersion
}

// acceptedFlags returns the kubelet flags nodeboot and the kubelet accept,
// noting each one left out and why: every NodeConfig convert writes must
// pass config check.
func acceptedFlags(flags []string, n *notes) []string {
	var out []string
	for i, flag := range flags {
		if problems := validate.FlagProblems(kubeletflag.NormalizeItem(flag)); len(problems) > 0 {
			n.add(indexPath("spec.kubelet.flags", i), "left out: %s", strings.Join(problems, "; "))
			continue
		}
		out = append(out, flag)
	}
	return out
}

// al2Imports returns the containerd TOML with the imports line the AL2
// image's containerd config has, when the spec came from AL2 user data
// and the TOML does not set imports itself: nodeadm's and nodeboot's
// configs for NodeConfig input import nothing, so fragments that user data
// writes to /etc/containerd/config.d would no longer be read.
func al2Imports(c hub.Containerd, n *notes) string {
	if !c.ImportConfigDir {
		return c.Config
	}
	var doc map[string]any
	if err := toml.Unmarshal([]byte(c.Config), &doc); err != nil || doc["imports"] != nil {
		return c.Config
	}
	line := fmt.Sprintf("imports = [%q]\n", hub.ContainerdConfigDropIns)
	n.add("spec.containerd.config", "imports %s, as the AL2 image's containerd config does (AL2023's does not); remove the line if no user data writes containerd fragments there", hub.ContainerdConfigDropIns)
	return line + c.Config
}

// networkAddress returns a service CIDR with its host bits cleared, noting
// the change: bootstrap.sh and nodeadm accept 10.100.5.7/16, but config
// check wants the network address. keepClusterDNS keeps the cluster DNS
// address the host bits gave.
func networkAddress(cidr string, n *notes) string {
	p, err := netip.ParsePrefix(cidr)
	if err != nil || p.Masked() == p {
		return cidr
	}
	n.add("spec.cluster.cidr", "%s has host bits set; written as its network address %s", cidr, p.Masked())
	return p.Masked().String()
}

// keepClusterDNS returns the kubelet config with clusterDNS set to the
// address AL2, nodeadm and nodeboot derive from a service CIDR with host
// bits (172.20.5.0/16 gives 172.20.5.10), when the network address
// networkAddress writes instead would give another one and the config
// does not set clusterDNS itself: the converted user data then configures
// the same node.
func keepClusterDNS(spec hub.Spec, n *notes) map[string]json.RawMessage {
	config := spec.Kubelet.Config
	p, err := netip.ParsePrefix(spec.Cluster.CIDR)
	if err != nil || p.Masked() == p || config["clusterDNS"] != nil {
		return config
	}
	dns, err := clusterdns.Address(spec.Cluster.CIDR, nil)
	masked, _ := clusterdns.Address(p.Masked().String(), nil)
	if err != nil || dns == masked {
		return config
	}
	out := make(map[string]json.RawMessage, len(config)+1)
	maps.Copy(out, config)
	out["clusterDNS"], _ = json.Marshal([]string{dns})
	n.add("spec.kubelet.config.clusterDNS", "set to [%s], the cluster DNS address derived from %s as the node had it; with the network address it would be %s, which is most likely the cluster's DNS service: remove clusterDNS if so", dns, spec.Cluster.CIDR, masked)
	return out
}

// nodeConfigSpec builds the spec mapping in the API's field order.
func nodeConfigSpec(spec hub.Spec) (*mapping, error) {
	s := newMapping()
	s.child("cluster", clusterNode(spec.Cluster))
	containerd, err := containerdNode(spec.Containerd)
	if err != nil {
		return nil, err
	}
	s.child("containerd", containerd)
	s.child("instance", instanceNode(spec.Instance))
	kubelet, err := kubeletNode(spec.Kubelet)
	if err != nil {
		return nil, err
	}
	s.child("kubelet", kubelet)
	if len(spec.FeatureGates) > 0 {
		gates := newMapping()
		for _, k := range sortedKeys(spec.FeatureGates) {
			gates.set(k, boolNode(spec.FeatureGates[k]))
		}
		s.child("featureGates", gates)
	}
	s.child("identity", identityNode(spec.Identity))
	s.child("maxPods", maxPodsNode(spec.MaxPods))
	return s, nil
}

func clusterNode(c hub.Cluster) *mapping {
	m := newMapping()
	m.str("name", c.Name)
	m.str("apiServerEndpoint", c.APIServerEndpoint)
	if len(c.CertificateAuthority) > 0 {
		m.str("certificateAuthority", base64.StdEncoding.EncodeToString(c.CertificateAuthority))
	}
	m.str("cidr", c.CIDR)
	m.str("ipFamily", c.IPFamily)
	m.boolPtr("enableOutpost", c.EnableOutpost)
	m.str("id", c.ID)
	return m
}

func containerdNode(c hub.Containerd) (*mapping, error) {
	m := newMapping()
	m.block("config", c.Config)
	if err := m.jsonObject("baseRuntimeSpec", "spec.containerd.baseRuntimeSpec", c.BaseRuntimeSpec); err != nil {
		return nil, err
	}
	return m, nil
}

func instanceNode(in hub.Instance) *mapping {
	m := newMapping()
	if len(in.Environment) > 0 {
		env := newMapping()
		for _, service := range sortedKeys(in.Environment) {
			vars := newMapping()
			for _, k := range sortedKeys(in.Environment[service]) {
				vars.set(k, strNode(in.Environment[service][k]))
			}
			env.set(service, vars.node)
		}
		m.child("environment", env)
	}
	ls := newMapping()
	ls.str("strategy", in.LocalStorage.Strategy)
	ls.str("mountPath", in.LocalStorage.MountPath)
	ls.strings("disabledMounts", in.LocalStorage.DisabledMounts)
	m.child("localStorage", ls)
	net := newMapping()
	net.strings("nameservers", in.Network.Nameservers)
	net.strings("domains", in.Network.Domains)
	m.child("network", net)
	return m
}

func kubeletNode(k hub.Kubelet) (*mapping, error) {
	m := newMapping()
	if err := m.jsonObject("config", "spec.kubelet.config", k.Config); err != nil {
		return nil, err
	}
	m.strings("flags", k.Flags)
	m.str("maxPodsExpression", k.MaxPodsExpression)
	return m, nil
}

func identityNode(id hub.Identity) *mapping {
	m := newMapping()
	m.str("mode", id.Mode)
	exec := newMapping()
	exec.str("command", id.Exec.Command)
	exec.strings("args", id.Exec.Args)
	exec.stringMap("env", id.Exec.Env)
	m.child("exec", exec)
	bt := newMapping()
	bt.str("token", id.BootstrapToken.Token)
	bt.strings("caCertHashes", id.BootstrapToken.CACertHashes)
	bt.boolean("unsafeSkipCAVerification", id.BootstrapToken.UnsafeSkipCAVerification)
	m.child("bootstrapToken", bt)
	return m
}

func maxPodsNode(p hub.MaxPodsPolicy) *mapping {
	m := newMapping()
	m.boolPtr("prefixDelegation", p.PrefixDelegation)
	m.boolPtr("customNetworking", p.CustomNetworking)
	m.integer("maxENIs", p.MaxENIs)
	m.boolPtr("cap", p.Cap)
	m.boolPtr("set", p.Set)
	return m
}
