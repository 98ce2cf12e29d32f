package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-logr/logr"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/aws/awsconfig/sdkdefault"
	"github.com/nodeboot/nodeboot/internal/aws/ec2"
	"github.com/nodeboot/nodeboot/internal/aws/imds"
	"github.com/nodeboot/nodeboot/internal/cluster/approver"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/ec2inventory"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
)

// EC2 API retry policy of the approver: a lookup runs inside a reconcile,
// so it retries briefly and leaves longer outages to the Reconciler, which
// requeues the CSR. AWS_MAX_ATTEMPTS overrides the attempts.
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

// inventorySetup is the inventory the approver runs with.
type inventorySetup struct {
	mode      policy.InventoryMode
	inventory approver.Inventory
	// region is the EC2 API's region, and regionSource where it came from
	// (flag, sdk, imds), for the startup log.
	region, regionSource string
}

// newInventory resolves --ec2-inventory: off, or the region and the EC2
// client. It makes no EC2 call; with auto and on it may ask the instance
// metadata service for the region.
func newInventory(ctx context.Context, opts Options, log logr.Logger, metrics *approver.Metrics) (inventorySetup, error) {
	if opts.EC2Inventory == EC2InventoryOff {
		return inventorySetup{mode: policy.InventoryOff}, nil
	}
	cfg, err := sdkdefault.Load(ctx, awsconfig.Options{
		Region:      opts.AWSRegion,
		MaxAttempts: ec2MaxAttempts, BaseDelay: ec2BaseDelay, MaxDelay: ec2MaxDelay,
		Logger: slog.New(logr.ToSlogHandler(log.WithName("aws-sdk"))),
	})
	if err != nil {
		return inventorySetup{}, fmt.Errorf("--ec2-inventory=%s: %w", opts.EC2Inventory, err)
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
	switch {
	case cfg.Region == "" && opts.EC2Inventory == EC2InventoryOn:
		return inventorySetup{}, fmt.Errorf("--ec2-inventory=on: %w", ErrNoRegion)
	case cfg.Region == "":
		return inventorySetup{mode: policy.InventoryUnavailable}, nil
	}
	cache := ec2inventory.Options{TTL: opts.EC2InventoryCacheTTL, Observe: metrics.ObserveInventoryLookup}
	if cache.TTL == 0 {
		cache.TTL = -1 // no cache, for absences either
	}
	setup.mode = policy.InventoryEC2
	setup.inventory = ec2inventory.New(ec2.New(cfg, ec2.NameWait{}), cache)
	return setup, nil
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
