package convert

import (
	"encoding/base64"
	"encoding/json"
	"net/netip"
	"reflect"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// bootstrapScript is where Amazon Linux 2 EKS AMIs keep the bootstrap script.
const bootstrapScript = "/etc/eks/bootstrap.sh"

// defaultLocalDisksDir is setup-local-disks' default mount directory, the
// only one bootstrap.sh --local-disks can use.
const defaultLocalDisksDir = "/mnt/k8s-disks"

// BootstrapSh writes spec as a MIME document with one text/x-shellscript
// part that runs /etc/eks/bootstrap.sh (Amazon Linux 2). Cluster fields
// become bootstrap.sh options; kubelet config fields that have a kubelet
// flag (maxPods → --max-pods, registerWithTaints → --register-with-taints,
// …) and spec.kubelet.flags go into --kubelet-extra-args. It returns
// ErrClusterNameRequired when spec has no cluster name.
func BootstrapSh(spec hub.Spec) ([]byte, []string, error) {
	if spec.Cluster.Name == "" {
		return nil, nil, ErrClusterNameRequired
	}
	var n notes
	spec.Kubelet.Config = keepClusterDNS(spec, &n)
	args := []string{shellQuote(spec.Cluster.Name)}
	opt := func(flag, value string) { args = append(args, flag+" "+shellQuote(value)) }
	c := spec.Cluster
	if c.APIServerEndpoint != "" {
		opt("--apiserver-endpoint", c.APIServerEndpoint)
	}
	if len(c.CertificateAuthority) > 0 {
		opt("--b64-cluster-ca", base64.StdEncoding.EncodeToString(c.CertificateAuthority))
	}
	if c.IPFamily != "" {
		opt("--ip-family", c.IPFamily)
	}
	if c.CIDR != "" {
		cidr := networkAddress(c.CIDR, &n)
		opt(serviceCIDRFlag(cidr), cidr)
	}
	if dns, ok := clusterDNSList(spec.Kubelet.Config, &n); ok {
		opt("--dns-cluster-ip", strings.Join(dns, ","))
	}
	if spec.MaxPods.Set != nil && !*spec.MaxPods.Set {
		opt("--use-max-pods", "false")
	}
	if c.EnableOutpost != nil {
		opt("--enable-local-outpost", boolText(*c.EnableOutpost))
	}
	if c.ID != "" {
		opt("--cluster-id", c.ID)
	}
	if disks, ok := localDisks(spec.Instance.LocalStorage, &n); ok {
		opt("--local-disks", disks)
	}
	extra := kubeletArgs(spec.Kubelet, argsTarget{script: "bootstrap.sh", handled: map[string]bool{"clusterDNS": true}}, &n)
	if len(extra) > 0 {
		// Always quoted, as every generator does, even when one flag needs none.
		args = append(args, "--kubelet-extra-args "+singleQuote(strings.Join(extra, " ")))
	}
	bootstrapShNotes(spec, &n)
	var b strings.Builder
	b.WriteString("#!/bin/bash\nset -ex\n")
	b.WriteString(bootstrapScript + " " + strings.Join(args, " \\\n  ") + "\n")
	doc, err := mimeDocument(ContentTypeShell, []byte(b.String()))
	return doc, n, err
}

// serviceCIDRFlag picks the bootstrap.sh option for a service CIDR.
func serviceCIDRFlag(cidr string) string {
	if p, err := netip.ParsePrefix(cidr); err == nil && p.Addr().Is6() {
		return "--service-ipv6-cidr"
	}
	return "--service-ipv4-cidr"
}

// clusterDNSList reads kubelet clusterDNS, noting a value it cannot use.
func clusterDNSList(config map[string]json.RawMessage, n *notes) ([]string, bool) {
	raw, ok := config["clusterDNS"]
	if !ok {
		return nil, false
	}
	var ips []string
	if err := json.Unmarshal(raw, &ips); err != nil || len(ips) == 0 {
		n.add("spec.kubelet.config[clusterDNS]", "must be a non-empty list of IP addresses, got %s", clipBytes(raw))
		return nil, false
	}
	return ips, true
}

// localDisks maps the local storage strategy to --local-disks.
func localDisks(ls hub.LocalStorage, n *notes) (string, bool) {
	if ls.MountPath != "" && ls.MountPath != defaultLocalDisksDir {
		n.add("spec.instance.localStorage.mountPath", "bootstrap.sh always mounts instance storage under %s", defaultLocalDisksDir)
	}
	if len(ls.DisabledMounts) > 0 {
		n.add("spec.instance.localStorage.disabledMounts", "bootstrap.sh always bind-mounts every directory onto instance storage")
	}
	if ls.Strategy == "" {
		return "", false
	}
	switch s := strings.ToLower(ls.Strategy); s {
	case "raid0", "raid10", "mount":
		return s, true
	}
	n.add("spec.instance.localStorage.strategy", "%q is not a bootstrap.sh --local-disks value (raid0, raid10, mount)", ls.Strategy)
	return "", false
}

// bootstrapShNotes notes the hub settings bootstrap.sh has no option for.
func bootstrapShNotes(spec hub.Spec, n *notes) {
	if spec.Containerd.Config != "" {
		n.add("spec.containerd.config", "bootstrap.sh can only replace the whole containerd config with a file (--containerd-config-file), not merge a fragment")
	}
	if len(spec.Containerd.BaseRuntimeSpec) > 0 {
		n.add("spec.containerd.baseRuntimeSpec", "bootstrap.sh has no option for the OCI base runtime spec")
	}
	if len(spec.Instance.Environment) > 0 {
		n.add("spec.instance.environment", "bootstrap.sh has no option for service environment variables")
	}
	if !reflect.ValueOf(spec.Instance.Network).IsZero() {
		n.add("spec.instance.network", "bootstrap.sh does not configure name resolution")
	}
	featureGateNotes(spec.FeatureGates, "bootstrap.sh", n)
	identityNotes(spec.Identity, "bootstrap.sh", n)
	maxPodsPolicyNotes(spec.MaxPods, "bootstrap.sh reads max pods from its eni-max-pods.txt table", n)
}

// featureGateNotes notes nodeboot feature gates a script cannot turn on.
func featureGateNotes(gates map[string]bool, script string, n *notes) {
	for _, gate := range sortedKeys(gates) {
		if gates[gate] {
			n.add("spec.featureGates["+gate+"]", "%s has no equivalent; it behaves as if the gate were off", script)
		}
	}
}

// identityNotes notes identity settings other than the default exec credential.
func identityNotes(id hub.Identity, script string, n *notes) {
	if id.Mode == hub.IdentityBootstrapToken || id.BootstrapToken.Token != "" || len(id.BootstrapToken.CACertHashes) > 0 {
		n.add("spec.identity.bootstrapToken", "%s always authenticates the kubelet with IAM, not a bootstrap token", script)
	}
	if !reflect.ValueOf(id.Exec).IsZero() {
		n.add("spec.identity.exec", "%s always uses its own IAM authenticator command", script)
	}
}

// maxPodsPolicyNotes notes the max pods policy fields a script ignores.
func maxPodsPolicyNotes(p hub.MaxPodsPolicy, how string, n *notes) {
	policy := p
	policy.Set = nil
	if !reflect.ValueOf(policy).IsZero() {
		n.add("spec.maxPods", "%s; set spec.kubelet.config maxPods to choose the value", how)
	}
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
