package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/go-logr/logr"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/aws/awsconfig/sdkdefault"
	"github.com/nodeboot/nodeboot/internal/aws/ec2"
	"github.com/nodeboot/nodeboot/internal/aws/eks"
	"github.com/nodeboot/nodeboot/internal/aws/imds"
	"github.com/nodeboot/nodeboot/internal/cluster/approver"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/ec2inventory"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
)

// EC2 API retry policy of the approver: one call answers up to 150 CSRs,
// so it retries briefly (full jitter, so that replicas and other tools
// throttled together do not retry in step) and leaves longer outages to
// ec2inventory, which then backs off for a second, doubling up to a minute,
// and to the Reconciler, which holds the CSRs meanwhile. Together with the
// inventory's pace (--ec2-api-qps 5, burst 10) that keeps a join burst well
// inside an account's DescribeInstances budget (EC2 refills 20 a second per
// region). AWS_MAX_ATTEMPTS overrides the attempts.
const (
	ec2MaxAttempts = 3
	ec2BaseDelay   = 200 * time.Millisecond
	ec2MaxDelay    = 2 * time.Second
)

// Bounds of the instance metadata lookup that finds the region when
// nothing else gives one: off EC2 it fails fast or times out here.
const (
	imdsRegionTimeout  = 5 * time.Second
	imdsRegionAttempts = 2
)

// ErrNoRegion is returned with --ec2-inventory=on when no AWS region is
// found.
var ErrNoRegion = errors.New("no AWS region: set --aws-region or AWS_REGION")

// ErrNoCluster is returned with --ec2-inventory=on when the cluster is not
// named.
var ErrNoCluster = errors.New("the cluster is not named: set --cluster-name (EKS), or --cluster-vpc-id and --cluster-account-id, " +
	"so that instances outside the cluster's VPC and account are refused")

// inventorySetup is the inventory the approver runs with.
type inventorySetup struct {
	mode policy.InventoryMode
	// problem says why mode is InventoryUnavailable.
	problem string
	source  *ec2inventory.Source
	// region is the EC2 API's region, and regionSource where it came from
	// (flag, sdk, imds), for the startup log; home says where the
	// cluster's VPC and account come from.
	region, regionSource, home string
}

// newInventory resolves --ec2-inventory: off, unavailable (auto without a
// region or a cluster name), or the region, the cluster's home and the EC2
// client. It makes no EC2 call; with auto and on it may ask the instance
// metadata service for the region.
func newInventory(ctx context.Context, opts Options, log logr.Logger, metrics *approver.Metrics) (inventorySetup, error) {
	if opts.EC2Inventory == EC2InventoryOff {
		return inventorySetup{mode: policy.InventoryOff}, nil
	}
	cfg, setup, err := awsConfig(ctx, opts, log)
	if err != nil {
		return inventorySetup{}, err
	}
	problem := ""
	switch {
	case cfg.Region == "":
		problem = ErrNoRegion.Error() + " (or run where the instance metadata service answers), or turn the check off with --ec2-inventory=off"
		err = ErrNoRegion
	case opts.ClusterName == "" && opts.ClusterVPCID == "":
		problem, err = ErrNoCluster.Error(), ErrNoCluster
	}
	switch {
	case err != nil && opts.EC2Inventory == EC2InventoryOn:
		return inventorySetup{}, fmt.Errorf("--ec2-inventory=on: %w", err)
	case err != nil:
		return inventorySetup{mode: policy.InventoryUnavailable, problem: problem}, nil
	}
	home, homeFrom := clusterHome(cfg, opts)
	setup.mode, setup.home = policy.InventoryEC2, homeFrom
	setup.source = ec2inventory.New(ec2.New(cfg, ec2.NameWait{}), home, ec2inventory.Options{
		TTL: cacheTTL(opts.EC2InventoryCacheTTL), Rate: opts.EC2APIQPS, Burst: opts.EC2APIBurst,
		Observe: metrics.ObserveInventoryLookup, ObserveCall: metrics.ObserveInventoryCall,
	})
	return setup, nil
}

// cacheTTL turns --ec2-inventory-cache-ttl into ec2inventory.Options.TTL:
// 0 (no cache) is negative there.
func cacheTTL(ttl time.Duration) time.Duration {
	if ttl == 0 {
		return -1
	}
	return ttl
}

// awsConfig loads the SDK configuration and finds the region: the flag, the
// SDK's environment and shared config, then the instance metadata service.
func awsConfig(ctx context.Context, opts Options, log logr.Logger) (aws.Config, inventorySetup, error) {
	cfg, err := sdkdefault.Load(ctx, awsconfig.Options{
		Region:      opts.AWSRegion,
		MaxAttempts: ec2MaxAttempts, BaseDelay: ec2BaseDelay, MaxDelay: ec2MaxDelay,
		Logger: slog.New(logr.ToSlogHandler(log.WithName("aws-sdk"))),
	})
	if err != nil {
		return aws.Config{}, inventorySetup{}, fmt.Errorf("--ec2-inventory=%s: %w", opts.EC2Inventory, err)
	}
	setup := inventorySetup{region: cfg.Region, regionSource: "sdk"}
	if opts.AWSRegion != "" {
		setup.regionSource = "flag"
	}
	if cfg.Region == "" {
		cfg.Region, err = imdsRegion(ctx, imdsRegionTimeout)
		setup.region, setup.regionSource = cfg.Region, "imds"
		if err != nil {
			log.V(1).Info("no region from the instance metadata service", "error", err.Error())
		}
	}
	return cfg, setup, nil
}

// clusterHome returns how to learn the cluster's VPC and account: from the
// flags, or from eks:DescribeCluster (called once, by the inventory).
func clusterHome(cfg aws.Config, opts Options) (ec2inventory.HomeFunc, string) {
	if opts.ClusterVPCID != "" {
		home := policy.ClusterHome{VPCID: opts.ClusterVPCID, AccountID: opts.ClusterAccountID}
		return func(context.Context) (policy.ClusterHome, error) { return home, nil }, "flags"
	}
	client := eks.New(cfg)
	return func(ctx context.Context) (policy.ClusterHome, error) {
		h, err := client.ClusterHome(ctx, opts.ClusterName)
		return policy.ClusterHome{VPCID: h.VPCID, AccountID: h.AccountID}, err
	}, "eks:DescribeCluster " + opts.ClusterName
}

// imdsRegion asks the instance metadata service of the machine the
// approver runs on for its region, briefly: a pod may not reach it (hop
// limit 1), and off EC2 there is none.
func imdsRegion(ctx context.Context, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	id, err := imds.New(imds.Options{MaxAttempts: imdsRegionAttempts}).IdentityDocument(ctx)
	if err != nil {
		return "", err
	}
	return id.Region, nil
}
