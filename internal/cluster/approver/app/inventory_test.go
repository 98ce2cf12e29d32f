package app

import (
	"errors"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/nodeboot/nodeboot/internal/cluster/approver"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

func TestNewInventory(t *testing.T) {
	tests := []struct {
		name string
		args []string
		// env: "region" keeps IsolateEnv's AWS_REGION, "imds" serves one
		// from a metadata stub, "none" has no region anywhere.
		env          string
		wantMode     policy.InventoryMode
		wantRegion   string
		wantFrom     string
		wantErr      error
		wantLookupOK bool
	}{
		{name: "off", args: []string{"--ec2-inventory=off"}, env: "region", wantMode: policy.InventoryOff},
		{name: "auto, region from the environment", env: "region", wantMode: policy.InventoryEC2, wantRegion: "us-west-2", wantFrom: "sdk", wantLookupOK: true},
		{name: "auto, region from the flag", args: []string{"--aws-region=eu-central-1"}, env: "none", wantMode: policy.InventoryEC2, wantRegion: "eu-central-1", wantFrom: "flag", wantLookupOK: true},
		{name: "auto, region from instance metadata", env: "imds", wantMode: policy.InventoryEC2, wantRegion: "ap-southeast-2", wantFrom: "imds", wantLookupOK: true},
		{name: "auto, no region anywhere", env: "none", wantMode: policy.InventoryUnavailable},
		{name: "on, no region anywhere", args: []string{"--ec2-inventory=on"}, env: "none", wantErr: ErrNoRegion},
		{name: "on, cache off", args: []string{"--ec2-inventory=on", "--ec2-inventory-cache-ttl=0"}, env: "region", wantMode: policy.InventoryEC2, wantRegion: "us-west-2", wantFrom: "sdk", wantLookupOK: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			awstest.IsolateEnv(t)
			stub := awstest.NewEC2(t)
			stub.AddInstance(awstest.Instance{ID: "i-0123456789abcdef0", PrivateDNSName: "ip-10-0-0-1.ec2.internal"})
			t.Setenv("AWS_ENDPOINT_URL", stub.URL)
			if tc.env != "region" {
				awstest.Unsetenv(t, "AWS_REGION")
			}
			if tc.env == "imds" {
				md := awstest.NewIMDS(t)
				md.SetIdentity("i-0123456789abcdef0", "ap-southeast-2", "m5.large", "ap-southeast-2a")
				t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", md.URL)
			}
			opts, err := ParseFlags(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			reg := prometheus.NewRegistry()
			metrics, err := approver.NewMetrics(reg)
			if err != nil {
				t.Fatal(err)
			}

			got, err := newInventory(t.Context(), opts, logr.Discard(), metrics)

			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("newInventory() error = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if got.mode != tc.wantMode || got.region != tc.wantRegion || got.regionSource != tc.wantFrom && tc.wantFrom != "" {
				t.Fatalf("newInventory() = mode %s region %q from %q, want %s %q from %q", got.mode, got.region, got.regionSource, tc.wantMode, tc.wantRegion, tc.wantFrom)
			}
			if (got.inventory != nil) != tc.wantLookupOK {
				t.Fatalf("inventory = %v, want one: %v", got.inventory, tc.wantLookupOK)
			}
			if got.inventory == nil {
				return
			}
			key := policy.InstanceKey{ID: "i-0123456789abcdef0"}
			for range 2 {
				if ans := got.inventory.Lookup(t.Context(), key); ans.Err != nil || len(ans.Instances) != 1 {
					t.Fatalf("Lookup() = %+v, want the stub's instance", ans)
				}
			}
			wantCalls := 1
			if opts.EC2InventoryCacheTTL == 0 {
				wantCalls = 2
			}
			if n := stub.Calls(awstest.ActionDescribeInstances); n != wantCalls {
				t.Errorf("DescribeInstances calls = %d, want %d", n, wantCalls)
			}
			if n := lookupsCounted(t, reg, "found"); n != float64(wantCalls) {
				t.Errorf("found lookups counted = %v, want %d", n, wantCalls)
			}
		})
	}
}

// lookupsCounted returns the inventory lookups reg counted with outcome.
func lookupsCounted(t *testing.T, reg *prometheus.Registry, outcome string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, fam := range families {
		if fam.GetName() != approver.MetricInventoryLookups {
			continue
		}
		for _, m := range fam.GetMetric() {
			if len(m.GetLabel()) == 1 && m.GetLabel()[0].GetValue() == outcome {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func TestIMDSRegionFailsWithoutAnAnswer(t *testing.T) {
	tests := []struct {
		name string
		hang bool
	}{
		{name: "no metadata service (closed port)"},
		{name: "metadata service that never answers", hang: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			awstest.IsolateEnv(t) // metadata at a closed loopback port
			if tc.hang {
				md := awstest.NewIMDS(t)
				md.SetDelay(awstest.PathToken, time.Hour)
				t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", md.URL)
			}
			if region, err := imdsRegion(t.Context(), 100*time.Millisecond); err == nil {
				t.Fatalf("imdsRegion() = %q without an answer", region)
			}
		})
	}
}
