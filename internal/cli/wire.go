package cli

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/aws/ec2"
	"github.com/nodeboot/nodeboot/internal/aws/eks"
	"github.com/nodeboot/nodeboot/internal/aws/imds"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/node/agent"
	"github.com/nodeboot/nodeboot/internal/node/host"
	"github.com/nodeboot/nodeboot/internal/node/service"
)

// newAgent wires the production effects. Nothing here does I/O: the IMDS
// client connects on first lookup, AWS API clients are built on first need.
func newAgent(inv Invocation, env Env, log *slog.Logger) *agent.Agent {
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return &agent.Agent{
		Log:      log,
		Root:     inv.Root,
		Metadata: imds.New(imds.Options{}),
		Cloud:    cloudFactory(log, inv.Root),
		Services: services(inv.Root),
		Probe:    host.Probe{Root: inv.Root, Run: host.ExecRunner{}, Warn: log.Warn},
		Setenv:   env.Setenv,
		Strict:   inv.Strict,
		// cel-go in process, or the nodeboot-cel helper (-tags celexec).
		Expressions: newExpressionEvaluator(),
		// nodeadm honours the same variable.
		CredentialProviderBin: getenv("ECR_CREDENTIAL_PROVIDER_BIN_PATH"),
	}
}

// services returns the systemd manager; with --root other than / the host's
// systemd is not the target's, so there is none.
func services(root string) func(context.Context) (service.Manager, error) {
	if filepath.Clean(root) != "/" {
		return nil
	}
	return func(ctx context.Context) (service.Manager, error) { return service.NewSystemd(ctx) }
}

func cloudFactory(log *slog.Logger, root string) agent.CloudFactory {
	return func(ctx context.Context, inst hub.InstanceStatus) (agent.Cloud, error) {
		cfg, err := awsconfig.LoadNode(ctx, awsconfig.Options{Region: inst.Region, Logger: log})
		if err != nil {
			return nil, err
		}
		cache := eks.NewCache(root)
		// Reused across reboots of this instance for a day; never by another
		// instance (an AMI baked from a node that had joined).
		cache.Owner = inst.Region + "/" + inst.ID
		cache.MaxAge = discoveryCacheMaxAge
		return awsCloud{ec2: ec2.New(cfg, ec2.NameWait{}), eks: eks.New(cfg), cache: cache, log: log}, nil
	}
}

// discoveryCacheMaxAge bounds how long a DescribeCluster answer is reused.
const discoveryCacheMaxAge = 24 * time.Hour

// awsCloud adapts the EC2 and EKS clients to agent.Cloud.
type awsCloud struct {
	ec2   *ec2.Client
	eks   *eks.Client
	cache eks.Cache
	log   *slog.Logger
}

// PrivateDNSName asks ec2:DescribeInstances for the node name.
func (c awsCloud) PrivateDNSName(ctx context.Context, instanceID string) (string, error) {
	return c.ec2.PrivateDNSName(ctx, instanceID)
}

// InstanceTypeLimits asks ec2:DescribeInstanceTypes for ENI limits.
func (c awsCloud) InstanceTypeLimits(ctx context.Context, instanceType string) (hub.NetworkLimits, error) {
	l, err := c.ec2.InstanceTypeLimits(ctx, instanceType)
	if err != nil {
		return hub.NetworkLimits{}, err
	}
	return l.NetworkLimits(), nil
}

// DescribeCluster returns cached or freshly described cluster details.
func (c awsCloud) DescribeCluster(ctx context.Context, name string) (agent.ClusterInfo, error) {
	info, fromCache, err := eks.Discover(ctx, c.log, c.eks, c.cache, name)
	if err != nil {
		return agent.ClusterInfo{}, fmt.Errorf("eks:DescribeCluster: %w", err)
	}
	c.log.Info("cluster details", "cluster", name, "endpoint", info.Endpoint, "fromCache", fromCache)
	return agent.ClusterInfo{
		Endpoint:        info.Endpoint,
		CA:              info.CA,
		ServiceIPv4CIDR: info.ServiceIPv4CIDR,
		ServiceIPv6CIDR: info.ServiceIPv6CIDR,
		IPFamily:        info.IPFamily,
		ID:              info.ID,
		OutpostARN:      info.OutpostARN,
	}, nil
}
