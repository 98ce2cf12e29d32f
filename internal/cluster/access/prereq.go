package access

import (
	"fmt"
	"sort"

	"github.com/nodeboot/nodeboot/internal/config/awsauth"
	"github.com/nodeboot/nodeboot/internal/config/eni"
	"github.com/nodeboot/nodeboot/internal/config/maxpods"
)

// VPC CNI settings the check reads.
const (
	cniConfigMap         = "amazon-vpc-cni"
	cniDaemonSet         = "aws-node"
	keyWindowsIPAM       = "enable-windows-ipam"
	envPrefixDelegation  = "ENABLE_PREFIX_DELEGATION"
	envCustomNetworking  = "AWS_VPC_K8S_CNI_CUSTOM_NETWORK_CFG"
	envPodENI            = "ENABLE_POD_ENI"
	envIPv6              = "ENABLE_IPv6"
	envWarmPrefixTarget  = "WARM_PREFIX_TARGET"
	envWarmIPTarget      = "WARM_IP_TARGET"
	envMinimumIPTarget   = "MINIMUM_IP_TARGET"
	labelPrivateIPv4Addr = "vpc.amazonaws.com/PrivateIPv4Address"
)

func finding(sev awsauth.Severity, code, format string, args ...any) Finding {
	return Finding{Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)}
}

// windowsPrerequisites are what EKS needs before Windows nodes work: a
// Linux node (CoreDNS and the VPC CNI's controllers run there), Windows
// IPAM turned on in amazon-vpc-cni, and none of the VPC CNI features
// Windows nodes do not support (security groups for pods, custom
// networking, IPv6).
func windowsPrerequisites(c Cluster) []Finding {
	var out []Finding
	switch {
	case c.NodesErr != nil:
		out = append(out, finding(awsauth.SevWarning, "windows-linux-node", "cannot count Linux nodes (%v): Windows nodes need at least one", c.NodesErr))
	case c.LinuxNodes == 0:
		out = append(out, finding(awsauth.SevError, "windows-linux-node", "the cluster has no Linux node: Windows nodes need at least one for CoreDNS and the VPC CNI's controllers"))
	}
	if c.CNI.ConfigMap[keyWindowsIPAM] != "true" {
		out = append(out, finding(awsauth.SevError, "windows-ipam",
			"kube-system/%s lacks %s: \"true\": pods on Windows nodes never get an IP (their events say they do not have label %s)",
			cniConfigMap, keyWindowsIPAM, labelPrivateIPv4Addr))
	}
	if c.CNI.envTrue(envPodENI) {
		out = append(out, finding(awsauth.SevError, "windows-pod-eni", "%s=true (security groups for pods) in %s: Windows nodes do not support it", envPodENI, cniDaemonSet))
	}
	if c.CNI.envTrue(envCustomNetworking) {
		out = append(out, finding(awsauth.SevError, "windows-custom-networking", "%s=true (custom networking) in %s: Windows nodes do not support it", envCustomNetworking, cniDaemonSet))
	}
	if c.IPFamily == "ipv6" || c.CNI.envTrue(envIPv6) {
		out = append(out, finding(awsauth.SevError, "windows-ipv6", "the cluster uses IPv6: Windows nodes do not support it"))
	}
	return out
}

// maxPodsFindings compares the max pods the group's user data gives each
// instance type with what the VPC CNI's settings can give pods IPs for.
func maxPodsFindings(cni CNI, g Group) []Finding {
	var out []Finding
	types := make([]string, 0, len(g.MaxPods))
	for t := range g.MaxPods {
		types = append(types, t)
	}
	sort.Strings(types)
	prefix := cni.envTrue(envPrefixDelegation) && !g.Windows
	custom := cni.envTrue(envCustomNetworking)
	for _, t := range types {
		given := g.MaxPods[t]
		limits, known := eni.Lookup(t)
		if given <= 0 || !known {
			continue
		}
		supported := supportedPods(limits, prefix, custom, g.Windows)
		standard := int32(maxpods.Standard(limits))
		switch {
		case given > supported:
			out = append(out, finding(awsauth.SevWarning, "max-pods-over",
				"%s: the user data gives max pods %d, but the VPC CNI as configured (prefix delegation %v, custom networking %v) has IPs for %d: pods past that stay ContainerCreating",
				t, given, prefix, custom, supported))
		case prefix && given <= standard:
			out = append(out, finding(awsauth.SevWarning, "max-pods-under",
				"%s: prefix delegation is on, but the user data gives max pods %d, the figure without it (the VPC CNI could give %d)", t, given, supported))
		}
	}
	if prefix && cni.Env[envWarmPrefixTarget] == "" && cni.Env[envWarmIPTarget] == "" && cni.Env[envMinimumIPTarget] == "" {
		out = append(out, finding(awsauth.SevWarning, "warm-target", "prefix delegation is on without %s, %s or %s: the VPC CNI's defaults apply", envWarmPrefixTarget, envWarmIPTarget, envMinimumIPTarget))
	}
	return out
}

// supportedPods is how many pods the instance type can give IPs under the
// VPC CNI's settings (the max-pods formula without a cap).
func supportedPods(l eni.Limits, prefix, custom, windows bool) int32 {
	if windows {
		return int32(maxpods.WindowsMaxPods(l))
	}
	res, _ := maxpods.Compute(maxpods.Input{Limits: l, Known: true, Policy: maxpods.Policy{PrefixDelegation: prefix, CustomNetworking: custom}})
	return res.MaxPods
}
