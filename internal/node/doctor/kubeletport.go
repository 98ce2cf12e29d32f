package doctor

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nodeboot/nodeboot/internal/aws/ec2"
)

// Ports the control plane and the kubelet talk on.
const (
	defaultKubeletPort = 10250
	apiServerPort      = 443
	portDialBound      = 2 * time.Second
)

// KubeletPortEvidence is whether the kubelet serves on its port, and
// whether the instance's security groups let the control plane reach it.
type KubeletPortEvidence struct {
	Port int32
	// Dialed is the address connected to, ListenErr what connecting said.
	Dialed    string
	ListenErr error
	Cloud     CloudEvidence
}

// gatherKubeletPort connects to the kubelet's port on this host.
func gatherKubeletPort(ctx context.Context, nw Network, k KubeletFacts) KubeletPortEvidence {
	ev := KubeletPortEvidence{Port: k.EffectivePort()}
	host := firstNonEmpty(k.NodeIP, "127.0.0.1")
	if i := strings.IndexByte(host, ','); i >= 0 { // dual stack: the first
		host = host[:i]
	}
	ev.Dialed = net.JoinHostPort(host, strconv.Itoa(int(ev.Port)))
	ctx, cancel := context.WithTimeout(ctx, portDialBound)
	defer cancel()
	c, err := nw.dial(ctx, "tcp", ev.Dialed)
	if err == nil {
		c.Close()
	}
	ev.ListenErr = err
	return ev
}

// kubeletPortVerdict judges the port and the security groups.
func kubeletPortVerdict(ev KubeletPortEvidence) Result {
	r := Result{ID: CheckKubeletPort}
	if ev.ListenErr != nil {
		r.Verdict = Fail
		r.Summary = fmt.Sprintf("nothing answers on the kubelet's port %s: %v", ev.Dialed, ev.ListenErr)
		r.Action = "The kubelet runs but does not serve: read its errors (a serving certificate it cannot load, another process on the port); kubectl logs, exec and metrics need it."
		return r
	}
	r.Evidence = append(r.Evidence, "the kubelet serves on "+ev.Dialed)
	return securityGroupVerdict(r, ev)
}

// securityGroupVerdict checks the instance's groups against the cluster
// security group: in on the kubelet's port, out on 443.
func securityGroupVerdict(r Result, ev KubeletPortEvidence) Result {
	c := ev.Cloud
	r.Verdict = OK
	switch {
	case c.Err != nil || c.Cluster == "":
		r.Summary = fmt.Sprintf("the kubelet serves on %s; security groups not checked: %s", ev.Dialed, why(c))
		return r
	case c.InfoErr != nil || c.GroupsErr != nil:
		r.Verdict = Warn
		r.Summary = "the kubelet serves on " + ev.Dialed + "; security groups could not be read: " + firstErr(c.InfoErr, c.GroupsErr).Error()
		r.Action = "Give the node role ec2:DescribeSecurityGroups and eks:DescribeCluster (AmazonEKSWorkerNodePolicy grants both), or check the groups by hand."
		return r
	}
	clusterSGs := slices.DeleteFunc(append([]string{c.Info.ClusterSecurityGroupID}, c.Info.SecurityGroupIDs...), func(s string) bool { return s == "" })
	var ids []string
	for _, g := range c.Groups {
		ids = append(ids, g.ID)
	}
	r.Evidence = append(r.Evidence, fmt.Sprintf("instance security groups %s; cluster security groups %s", strings.Join(ids, ", "), strings.Join(clusterSGs, ", ")))
	in, inHow := allows(c.Groups, clusterSGs, true, ev.Port)
	out, outHow := allows(c.Groups, clusterSGs, false, apiServerPort)
	r.Evidence = append(r.Evidence, "in on "+strconv.Itoa(int(ev.Port))+": "+inHow, "out on 443: "+outHow)
	switch {
	case !in:
		r.Verdict = Fail
		r.Summary = fmt.Sprintf("the control plane cannot reach the kubelet: no rule of %s lets the cluster security group %s in on TCP %d (kubectl logs, exec, port-forward and metrics fail)",
			strings.Join(ids, ", "), strings.Join(clusterSGs, ", "), ev.Port)
		r.Action = fmt.Sprintf("aws ec2 authorize-security-group-ingress --group-id %s --protocol tcp --port %d --source-group %s", first(ids), ev.Port, first(clusterSGs))
	case !out:
		r.Verdict = Fail
		r.Summary = fmt.Sprintf("no rule of %s lets this node out to the cluster security group on TCP 443: the kubelet cannot reach the API server's private endpoint", strings.Join(ids, ", "))
		r.Action = fmt.Sprintf("aws ec2 authorize-security-group-egress --group-id %s --protocol tcp --port 443 --source-group %s", first(ids), first(clusterSGs))
	default:
		r.Summary = fmt.Sprintf("the kubelet serves on %s and the security groups let the control plane in on %d and the node out on 443", ev.Dialed, ev.Port)
	}
	return r
}

func why(c CloudEvidence) string {
	switch {
	case c.Err != nil:
		return c.Err.Error()
	case c.ClusterErr != nil:
		return "the cluster's name is unknown: " + c.ClusterErr.Error()
	}
	return "the node's config names no EKS cluster"
}

func first(s []string) string {
	if len(s) == 0 {
		return "?"
	}
	return s[0]
}

// allows reports whether the groups let peers (the cluster's groups) in
// (ingress) or out to them (egress) on TCP port, and how.
func allows(groups []ec2.SecurityGroup, peers []string, ingress bool, port int32) (bool, string) {
	for _, g := range groups {
		if slices.Contains(peers, g.ID) && hasSelfRule(g, ingress) {
			return true, "the instance is in the cluster security group " + g.ID + ", which allows all traffic within itself"
		}
	}
	for _, g := range groups {
		rules := g.Egress
		if ingress {
			rules = g.Ingress
		}
		for _, p := range rules {
			if !coversTCP(p, port) {
				continue
			}
			for _, peer := range p.Groups {
				if slices.Contains(peers, peer) {
					return true, fmt.Sprintf("%s allows %s", g.ID, peer)
				}
			}
			if len(p.CIDRs) > 0 || len(p.PrefixLists) > 0 {
				return true, fmt.Sprintf("%s allows %s (by address range: not checked against the control plane's subnets)", g.ID, strings.Join(append(p.CIDRs, p.PrefixLists...), ", "))
			}
		}
	}
	return false, "no rule"
}

// hasSelfRule reports whether a group allows all traffic from (to) itself.
func hasSelfRule(g ec2.SecurityGroup, ingress bool) bool {
	rules := g.Egress
	if ingress {
		rules = g.Ingress
	}
	for _, p := range rules {
		if p.Protocol == "-1" && (slices.Contains(p.Groups, g.ID) || !ingress && len(p.CIDRs) > 0) {
			return true
		}
	}
	return false
}

// coversTCP reports whether a rule covers TCP port.
func coversTCP(p ec2.Permission, port int32) bool {
	switch p.Protocol {
	case "-1", "all":
		return true
	case "tcp", "6":
		return p.FromPort <= port && port <= p.ToPort
	}
	return false
}
