package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/nodeboot/nodeboot/api/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/config/eni"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
	"github.com/nodeboot/nodeboot/internal/config/legacy/eksctlal2"
	"github.com/nodeboot/nodeboot/internal/config/maxpods"
	"github.com/nodeboot/nodeboot/internal/config/validate"
	"github.com/nodeboot/nodeboot/internal/node/discovery"
)

// DefaultSandboxImage is the pause image the AMI pre-loads (nodeadm parity).
const DefaultSandboxImage = "localhost/kubernetes/pause:latest"

// ErrNoServiceManager is returned by the run phase when no service manager is available.
var ErrNoServiceManager = errors.New("run phase: no service manager (systemd) available; use --skip run")

// ErrNoCloud is returned when an AWS API call is needed but no client is configured.
var ErrNoCloud = errors.New("an AWS API call is needed but no AWS client is configured")

// Enrich completes the merged spec with what the machine and AWS say. It
// returns the effective config: the spec with discovered cluster details
// filled in, and the status.
func (a *Agent) Enrich(ctx context.Context, spec hub.Spec, f *facts, wins DescribeWins) (hub.NodeConfig, error) {
	f.wait()
	if err := f.firstError(); err != nil {
		return hub.NodeConfig{}, err
	}
	cfg := hub.NodeConfig{Spec: spec, Status: hub.Status{
		Instance:          f.instance,
		KubeletVersion:    f.kubeletVersion,
		ContainerdVersion: f.containerdVersion,
		SandboxImage:      DefaultSandboxImage,
		Hardware:          f.hardware,
	}}
	cloud := &lazyCloud{factory: a.Cloud, instance: f.instance}
	// The four lookups run in parallel, each on its own copy of cfg (maps
	// and slices are only read), and each owns the fields it copies back.
	var wg sync.WaitGroup
	var errs [4]error
	clusterCfg, nameCfg, limitsCfg := cfg, cfg, cfg
	wg.Go(func() { errs[0] = a.discoverCluster(ctx, cloud, &clusterCfg, wins) })
	wg.Go(func() { errs[1] = a.nodeName(ctx, cloud, &nameCfg) })
	wg.Go(func() { errs[2] = a.networkLimits(ctx, cloud, &limitsCfg) })
	var lifecycle string
	wg.Go(func() { lifecycle = a.instanceLifecycle(ctx, spec) })
	wg.Wait()
	cfg.Spec.Cluster = clusterCfg.Spec.Cluster
	cfg.Status.Instance.VPCIPv4CIDRs = clusterCfg.Status.Instance.VPCIPv4CIDRs
	cfg.Status.Instance.PrivateDNSName = nameCfg.Status.Instance.PrivateDNSName
	cfg.Status.NetworkLimits = limitsCfg.Status.NetworkLimits
	cfg.Status.Instance.Lifecycle = lifecycle
	// The node IP family is only certain once the cluster is discovered.
	errs[3] = a.nodeAddress(ctx, &cfg)
	if errors.Join(errs[:]...) == nil {
		errs[0] = a.pinAPIServer(ctx, &cfg)
	}
	return cfg, errors.Join(errs[:]...)
}

func (f *facts) firstError() error {
	switch {
	case f.instanceErr != nil:
		return fmt.Errorf("instance metadata: %w", f.instanceErr)
	case f.kubeletErr != nil:
		return fmt.Errorf("kubelet version: %w", f.kubeletErr)
	case f.containerdErr != nil:
		return fmt.Errorf("containerd version: %w", f.containerdErr)
	case f.hardwareErr != nil:
		return fmt.Errorf("hardware: %w", f.hardwareErr)
	}
	return nil
}

// discoverCluster fills endpoint, CA and service CIDR with
// eks:DescribeCluster when the config lacks them (see DescribeWins for
// what the answer replaces), then the VPC CIDRs when the cluster DNS
// address still cannot be derived.
func (a *Agent) discoverCluster(ctx context.Context, cloud *lazyCloud, cfg *hub.NodeConfig, wins DescribeWins) error {
	if missing := validate.DiscoveryNeeded(cfg.Spec); len(missing) > 0 {
		a.Log.Info("discovering cluster details", "cluster", cfg.Spec.Cluster.Name, "missing", missing)
		info, err := a.describeCluster(ctx, cloud, cfg.Spec.Cluster.Name)
		if err != nil {
			return fmt.Errorf("discover cluster %q (%s): %w", cfg.Spec.Cluster.Name, strings.Join(missing, ", "), err)
		}
		applyClusterInfo(&cfg.Spec.Cluster, info, wins)
	}
	if err := discoverBootstrapCA(ctx, &cfg.Spec); err != nil {
		return err
	}
	if cfg.Spec.Cluster.CIDR != "" || validate.HasClusterDNS(cfg.Spec) || a.Metadata == nil {
		return nil
	}
	cidrs, err := a.Metadata.VPCIPv4CIDRs(ctx, cfg.Status.Instance.MAC)
	if err != nil {
		return fmt.Errorf("VPC CIDR blocks (needed for the cluster DNS address): %w", err)
	}
	cfg.Status.Instance.VPCIPv4CIDRs = cidrs
	return nil
}

func (a *Agent) describeCluster(ctx context.Context, cloud *lazyCloud, name string) (ClusterInfo, error) {
	c, err := cloud.get(ctx)
	if err != nil {
		return ClusterInfo{}, err
	}
	return c.DescribeCluster(ctx, name)
}

// discoverBootstrapCA fetches and verifies the cluster CA from
// kube-public/cluster-info for bootstrap-token joins without a CA.
func discoverBootstrapCA(ctx context.Context, spec *hub.Spec) error {
	id := spec.Identity
	if id.Mode != hub.IdentityBootstrapToken || len(spec.Cluster.CertificateAuthority) > 0 {
		return nil
	}
	ca, err := discovery.ClusterCA(ctx, discovery.Request{
		Endpoint: spec.Cluster.APIServerEndpoint,
		Token:    id.BootstrapToken.Token,
		Pins:     id.BootstrapToken.CACertHashes,
		Unsafe:   id.BootstrapToken.UnsafeSkipCAVerification,
	})
	if err != nil {
		return fmt.Errorf("discover the cluster CA from kube-public/cluster-info: %w", err)
	}
	spec.Cluster.CertificateAuthority = ca
	return nil
}

// nodeName looks up the EC2 private DNS name, unless the node is named
// after its instance ID or the user already set --hostname-override.
func (a *Agent) nodeName(ctx context.Context, cloud *lazyCloud, cfg *hub.NodeConfig) error {
	if cfg.Spec.FeatureGates[v1alpha1.FeatureInstanceIDNodeName] {
		return nil
	}
	if name := userFlag(cfg.Spec.Kubelet.Flags, "hostname-override"); name != "" {
		cfg.Status.Instance.PrivateDNSName = name
		return nil
	}
	c, err := cloud.get(ctx)
	if err != nil {
		return fmt.Errorf("node name: %w", err)
	}
	name, err := c.PrivateDNSName(ctx, cfg.Status.Instance.ID)
	if err != nil {
		return fmt.Errorf("node name (ec2:DescribeInstances; or enable feature gate %s): %w", v1alpha1.FeatureInstanceIDNodeName, err)
	}
	cfg.Status.Instance.PrivateDNSName = name
	return nil
}

// networkLimits finds the instance type's ENI limits: the embedded table
// first, ec2:DescribeInstanceTypes for types it does not know. Nothing is
// looked up when the user fixed maxPods.
func (a *Agent) networkLimits(ctx context.Context, cloud *lazyCloud, cfg *hub.NodeConfig) error {
	if _, set := maxpods.UserMaxPods(cfg.Spec); set && cfg.Spec.Kubelet.MaxPodsExpression == "" {
		return nil
	}
	if l, ok := eni.Lookup(cfg.Status.Instance.Type); ok {
		cfg.Status.NetworkLimits = hub.NetworkLimits{DefaultENIs: l.DefaultENIs, IPv4PerENI: l.IPv4PerENI, Hypervisor: l.Hypervisor, Source: "table"}
		return nil
	}
	c, err := cloud.get(ctx)
	if err != nil {
		a.Log.Warn("instance type not in the ENI table and no AWS client; max pods falls back to the default", "type", cfg.Status.Instance.Type, "error", err)
		return nil
	}
	l, err := c.InstanceTypeLimits(ctx, cfg.Status.Instance.Type)
	if err != nil {
		a.Log.Warn("ec2:DescribeInstanceTypes failed; max pods falls back to the default", "type", cfg.Status.Instance.Type, "error", err)
		return nil
	}
	l.Source = "ec2"
	cfg.Status.NetworkLimits = l
	return nil
}

// instanceLifecycle reads IMDS instance-life-cycle for the node-lifecycle
// label of eksctl's AL2 script, only when the spec asks for that label.
// eksctl's script would stop before bootstrap.sh when IMDS does not answer
// (or label the node with IMDS's error page); nodeboot warns and boots
// without the label instead (docs/user-data.md).
func (a *Agent) instanceLifecycle(ctx context.Context, spec hub.Spec) string {
	if !spec.Kubelet.EksctlIMDSLabels || a.Metadata == nil {
		return ""
	}
	const msg = "eksctl's AL2 user data labels the node with the instance's instance-life-cycle, which instance metadata did not give; the node gets no " + eksctlal2.LabelLifecycle + " label"
	v, err := a.Metadata.InstanceLifecycle(ctx)
	if err != nil {
		a.Log.Warn(msg, "error", err)
		return ""
	}
	if why := validate.LabelProblem(eksctlal2.LabelLifecycle, v); v == "" || why != "" {
		a.Log.Warn(msg, "value", v, "problem", why)
		return ""
	}
	return v
}

// nodeAddress switches the node IP to the primary ENI's IPv6 address on
// IPv6 clusters (IMDS local-ipv4 was read up front for IPv4).
func (a *Agent) nodeAddress(ctx context.Context, cfg *hub.NodeConfig) error {
	if !isIPv6(cfg.Spec.Cluster) || a.Metadata == nil {
		return nil
	}
	ips, err := a.Metadata.IPv6s(ctx, cfg.Status.Instance.MAC)
	if err != nil {
		return fmt.Errorf("node IPv6 address: %w", err)
	}
	if len(ips) == 0 {
		return fmt.Errorf("node IPv6 address: primary interface %s has none", cfg.Status.Instance.MAC)
	}
	cfg.Status.Instance.NodeIP = ips[0]
	return nil
}

func isIPv6(c hub.Cluster) bool {
	if c.IPFamily != "" {
		return c.IPFamily == "ipv6"
	}
	return strings.Contains(c.CIDR, ":")
}

// lazyCloud creates the AWS client once, on first use.
type lazyCloud struct {
	factory  CloudFactory
	instance hub.InstanceStatus
	once     sync.Once
	cloud    Cloud
	err      error
}

func (l *lazyCloud) get(ctx context.Context) (Cloud, error) {
	l.once.Do(func() {
		if l.factory == nil {
			l.err = ErrNoCloud
			return
		}
		l.cloud, l.err = l.factory(ctx, l.instance)
	})
	return l.cloud, l.err
}

// userFlag returns the value the kubelet ends up with for a flag of the
// user's kubelet.flags that keeps its last value.
func userFlag(flags []string, name string) string {
	v, _ := kubeletflag.Value(flags, name)
	return v
}
