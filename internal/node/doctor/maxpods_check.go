package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nodeboot/nodeboot/internal/config/eni"
	"github.com/nodeboot/nodeboot/internal/config/maxpods"
)

// CNI and IPAM facts.
const (
	cniConfDir = "/etc/cni/net.d"
	// vpcCNIType is the AWS VPC CNI's plugin type.
	vpcCNIType = "aws-cni"
	// DefaultIPAMDURL is the VPC CNI's ipamd introspection endpoint.
	DefaultIPAMDURL = "http://127.0.0.1:61679"
	ipamdBound      = 2 * time.Second
)

// IPAM modes of the VPC CNI.
const (
	ipamSecondaryIPs = "secondary IPs"
	ipamPrefixes     = "prefix delegation"
)

// MaxPodsEvidence is the kubelet's maxPods, the instance type's network
// limits, and how the CNI gives pods their addresses.
type MaxPodsEvidence struct {
	MaxPods      int32
	InstanceType string
	// Limits are the type's ENI limits (Known false when neither the
	// embedded table nor EC2 knows the type).
	Limits      eni.Limits
	Known       bool
	LimitsFrom  string
	LimitsError error
	// CNI is the plugin type of the first CNI config ("" when none), and
	// CNIFile that config.
	CNI, CNIFile string
	// IPAM is the VPC CNI's mode as ipamd says it ("" when ipamd did not answer).
	IPAM    string
	IPAMErr error
}

// gatherMaxPods reads the CNI config and asks ipamd.
func (d Doctor) gatherMaxPods(ctx context.Context, f Files, k KubeletFacts) MaxPodsEvidence {
	ev := MaxPodsEvidence{MaxPods: k.EffectiveMaxPods()}
	ev.CNI, ev.CNIFile = firstCNI(f)
	switch {
	case ev.CNI != vpcCNIType:
	case d.IPAMDURL != "":
		ev.IPAM, ev.IPAMErr = ipamdMode(ctx, d.IPAMDURL)
	case filepath.Clean(f.Root) == "/":
		ev.IPAM, ev.IPAMErr = ipamdMode(ctx, DefaultIPAMDURL)
	default:
		ev.IPAMErr = errors.New("not asked: --root is not /")
	}
	return ev
}

// withLimits adds the instance type's ENI limits: the embedded table,
// else what EC2 answered.
func (ev MaxPodsEvidence) withLimits(instanceType string, cloud CloudEvidence) MaxPodsEvidence {
	ev.InstanceType = instanceType
	if l, ok := eni.Lookup(instanceType); ok {
		ev.Limits, ev.Known, ev.LimitsFrom = l, true, "the embedded VPC CNI limits"
		return ev
	}
	if cloud.Err == nil && cloud.TypeErr == nil && cloud.Type.DefaultENIs > 0 {
		t := cloud.Type
		ev.Limits = eni.Limits{DefaultENIs: t.DefaultENIs, IPv4PerENI: t.IPv4PerENI, Hypervisor: t.Hypervisor, BareMetal: t.Hypervisor == ""}
		ev.Known, ev.LimitsFrom = true, "ec2:DescribeInstanceTypes"
		return ev
	}
	ev.LimitsError = fmt.Errorf("instance type %q is not in the embedded limits and EC2 did not say (%v)", instanceType, firstErr(cloud.Err, cloud.TypeErr))
	return ev
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// firstCNI returns the plugin type of the CNI config the runtime uses:
// the first file of /etc/cni/net.d in lexical order.
func firstCNI(f Files) (string, string) {
	entries, err := f.ReadDir(cniConfDir)
	if err != nil {
		return "", ""
	}
	var names []string
	for _, e := range entries {
		if ext := path.Ext(e.Name()); !e.IsDir() && (ext == ".conflist" || ext == ".conf" || ext == ".json") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	for _, n := range names {
		if t := cniType(f, path.Join(cniConfDir, n)); t != "" {
			return t, path.Join(cniConfDir, n)
		}
	}
	return "", ""
}

// cniType reads a .conf (type) or .conflist (plugins[0].type).
func cniType(f Files, p string) string {
	data, err := f.Read(p)
	if err != nil {
		return ""
	}
	var conf struct {
		Type    string `json:"type"`
		Plugins []struct {
			Type string `json:"type"`
		} `json:"plugins"`
	}
	if json.Unmarshal(data, &conf) != nil {
		return ""
	}
	if len(conf.Plugins) > 0 {
		return conf.Plugins[0].Type
	}
	return conf.Type
}

// ipamdMode asks ipamd's introspection for its ENIs: /28 prefixes mean
// prefix delegation, /32 addresses secondary IPs.
func ipamdMode(ctx context.Context, base string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, ipamdBound)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/v1/enis", nil)
	if err != nil {
		return "", err
	}
	resp, err := (&http.Client{Transport: &http.Transport{Proxy: nil}}).Do(req)
	if err != nil {
		return "", fmt.Errorf("ipamd introspection: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	var enis struct {
		ENIs map[string]struct {
			AvailableIPv4Cidrs map[string]json.RawMessage `json:"AvailableIPv4Cidrs"`
		} `json:"ENIs"`
	}
	if err := json.Unmarshal(body, &enis); err != nil {
		return "", fmt.Errorf("ipamd introspection: %w", err)
	}
	for _, e := range enis.ENIs {
		for cidr := range e.AvailableIPv4Cidrs {
			if strings.HasSuffix(cidr, "/28") {
				return ipamPrefixes, nil
			}
		}
	}
	return ipamSecondaryIPs, nil
}

// podLimit is how many pods the VPC CNI can give addresses on this type.
func podLimit(l eni.Limits, prefixes bool) int32 {
	res, _ := maxpods.Compute(maxpods.Input{Limits: l, Known: true, Policy: maxpods.Policy{PrefixDelegation: prefixes}})
	return res.MaxPods
}

// maxPodsVerdict judges maxPods against the pods the CNI can address.
func maxPodsVerdict(ev MaxPodsEvidence) Result {
	r := Result{ID: CheckMaxPods, Verdict: OK}
	r.Evidence = append(r.Evidence, fmt.Sprintf("kubelet maxPods %d", ev.MaxPods), cniEvidence(ev))
	switch {
	case ev.CNI != "" && ev.CNI != vpcCNIType:
		r.Summary = fmt.Sprintf("maxPods %d; the CNI is %s, not the VPC CNI: pod addresses do not come from the instance's ENIs", ev.MaxPods, ev.CNI)
		return r
	case !ev.Known:
		r.Verdict, r.Summary = Warn, fmt.Sprintf("maxPods %d not checked: %v", ev.MaxPods, ev.LimitsError)
		r.Action = "Check maxPods against the instance type's ENI limits by hand (max-pods-calculator.sh)."
		return r
	}
	secondary, prefixes := podLimit(ev.Limits, false), podLimit(ev.Limits, true)
	r.Evidence = append(r.Evidence, fmt.Sprintf("%s: %d ENIs × %d IPv4 each (%s): %d pods with secondary IPs, %d with prefix delegation",
		ev.InstanceType, ev.Limits.DefaultENIs, ev.Limits.IPv4PerENI, ev.LimitsFrom, secondary, prefixes))
	limit, mode := secondary, ipamSecondaryIPs
	if ev.IPAM == ipamPrefixes {
		limit, mode = prefixes, ipamPrefixes
	}
	switch {
	case ev.MaxPods <= limit:
		r.Summary = fmt.Sprintf("maxPods %d fits the %d pods %s's ENIs address with %s", ev.MaxPods, limit, ev.InstanceType, mode)
	case ev.IPAM == "" && ev.MaxPods <= prefixes:
		r.Verdict = Warn
		r.Summary = fmt.Sprintf("maxPods %d is above the %d pods %s's ENIs address with secondary IPs: it needs prefix delegation, which could not be confirmed", ev.MaxPods, secondary, ev.InstanceType)
		r.Action = "Make sure aws-node runs with ENABLE_PREFIX_DELEGATION=true, or lower maxPods to " + fmt.Sprint(secondary) + "."
	default:
		r.Verdict = Fail
		r.Summary = fmt.Sprintf("maxPods %d is above the %d pods %s's ENIs can address with %s: pods beyond %d stay ContainerCreating (\"failed to assign an IP address to container\")",
			ev.MaxPods, limit, ev.InstanceType, mode, limit)
		r.Action = fmt.Sprintf("Lower maxPods to %d (leave kubelet.config.maxPods unset to let nodeboot compute it)%s.", limit, prefixAdvice(ev, prefixes))
	}
	return r
}

func prefixAdvice(ev MaxPodsEvidence, prefixes int32) string {
	if ev.IPAM == ipamPrefixes || ev.MaxPods > prefixes {
		return ""
	}
	return fmt.Sprintf(", or turn on prefix delegation (ENABLE_PREFIX_DELEGATION=true on aws-node; up to %d pods)", prefixes)
}

func cniEvidence(ev MaxPodsEvidence) string {
	switch {
	case ev.CNI == "":
		return "no CNI config in " + cniConfDir + " yet: judged as the VPC CNI, EKS's default"
	case ev.CNI != vpcCNIType:
		return "CNI " + ev.CNI + " (" + ev.CNIFile + ")"
	case ev.IPAMErr != nil:
		return "VPC CNI (" + ev.CNIFile + "); ipamd did not say its mode: " + ev.IPAMErr.Error()
	}
	return "VPC CNI (" + ev.CNIFile + "), ipamd: " + ev.IPAM
}
