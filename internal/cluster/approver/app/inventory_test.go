package app

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/nodeboot/nodeboot/internal/cluster/approver"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/ec2inventory"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

func TestNewInventory(t *testing.T) {
	const cluster = "--cluster-name=prod"
	tests := []struct {
		name string
		args []string
		// env: "region" keeps IsolateEnv's AWS_REGION, "imds" serves one
		// from a metadata stub, "none" has no region anywhere.
		env          string
		wantMode     policy.InventoryMode
		wantRegion   string
		wantFrom     string
		wantProblem  string
		wantErr      error
		wantLookupOK bool
	}{
		{name: "off", args: []string{"--ec2-inventory=off"}, env: "region", wantMode: policy.InventoryOff},
		{name: "auto, region from the environment", args: []string{cluster}, env: "region", wantMode: policy.InventoryEC2, wantRegion: "us-west-2", wantFrom: "sdk", wantLookupOK: true},
		{name: "auto, region from the flag", args: []string{cluster, "--aws-region=eu-central-1"}, env: "none", wantMode: policy.InventoryEC2, wantRegion: "eu-central-1", wantFrom: "flag", wantLookupOK: true},
		{name: "auto, region from instance metadata", args: []string{cluster}, env: "imds", wantMode: policy.InventoryEC2, wantRegion: "ap-southeast-2", wantFrom: "imds", wantLookupOK: true},
		{name: "auto, the cluster's VPC and account from flags", args: []string{"--cluster-vpc-id=vpc-0123456789abcdef0", "--cluster-account-id=111122223333"}, env: "region", wantMode: policy.InventoryEC2, wantRegion: "us-west-2", wantLookupOK: true},
		{name: "auto, no region anywhere", args: []string{cluster}, env: "none", wantMode: policy.InventoryUnavailable, wantProblem: "no AWS region"},
		{name: "auto, no cluster named", env: "region", wantMode: policy.InventoryUnavailable, wantProblem: "the cluster is not named"},
		{name: "on, no region anywhere", args: []string{cluster, "--ec2-inventory=on"}, env: "none", wantErr: ErrNoRegion},
		{name: "on, no cluster named", args: []string{"--ec2-inventory=on"}, env: "region", wantErr: ErrNoCluster},
		{name: "on, cache off", args: []string{cluster, "--ec2-inventory=on", "--ec2-inventory-cache-ttl=0"}, env: "region", wantMode: policy.InventoryEC2, wantRegion: "us-west-2", wantFrom: "sdk", wantLookupOK: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stub := isolateAWS(t, tc.env)
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
			if !strings.Contains(got.problem, tc.wantProblem) || (tc.wantProblem == "") != (got.problem == "") {
				t.Fatalf("problem = %q, want %q", got.problem, tc.wantProblem)
			}
			if (got.source != nil) != tc.wantLookupOK {
				t.Fatalf("source = %v, want one: %v", got.source, tc.wantLookupOK)
			}
			if got.source != nil {
				checkLookups(t, got.source, stub, reg)
			}
		})
	}
}

// isolateAWS points the SDK at an EC2 stub with one instance and an EKS
// stub with cluster prod, and sets the region as env says.
func isolateAWS(t *testing.T, env string) *awstest.EC2 {
	t.Helper()
	awstest.IsolateEnv(t)
	stub := awstest.NewEC2(t)
	stub.AddInstance(awstest.Instance{ID: "i-0123456789abcdef0", PrivateDNSName: "ip-10-0-0-1.ec2.internal",
		VPCID: "vpc-0123456789abcdef0", OwnerID: awstest.DefaultAccountID})
	eksStub := awstest.NewEKS(t)
	eksStub.AddCluster(awstest.Cluster{Name: "prod", VPCID: "vpc-0123456789abcdef0"})
	t.Setenv("AWS_ENDPOINT_URL_EC2", stub.URL)
	t.Setenv("AWS_ENDPOINT_URL_EKS", eksStub.URL)
	if env != "region" {
		awstest.Unsetenv(t, "AWS_REGION")
	}
	if env == "imds" {
		md := awstest.NewIMDS(t)
		md.SetIdentity("i-0123456789abcdef0", "ap-southeast-2", "m5.large", "ap-southeast-2a")
		t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", md.URL)
	}
	return stub
}

// checkLookups runs the source and looks the stub's instance up twice: one
// call, its answer in the cluster's VPC and account, counted in reg.
func checkLookups(t *testing.T, src *ec2inventory.Source, stub *awstest.EC2, reg *prometheus.Registry) {
	t.Helper()
	ready := make(chan policy.InstanceKey, 1)
	src.OnReady(func(k policy.InstanceKey) { ready <- k })
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() { _ = src.Start(ctx) }()
	key := policy.InstanceKey{ID: "i-0123456789abcdef0"}
	if _, ok := src.Lookup(t.Context(), key); ok {
		t.Fatal("Lookup() answered before any call")
	}
	select {
	case <-ready:
	case <-time.After(time.Minute):
		t.Fatal("no answer")
	}
	for range 2 {
		ans, ok := src.Lookup(t.Context(), key)
		if !ok || ans.Err != nil || len(ans.Instances) != 1 || ans.Home.VPCID != "vpc-0123456789abcdef0" || ans.Home.AccountID != awstest.DefaultAccountID {
			t.Fatalf("Lookup() = %+v, %v; want the stub's instance and the cluster's home", ans, ok)
		}
	}
	if n := stub.Calls(awstest.ActionDescribeInstances); n != 1 {
		t.Errorf("DescribeInstances calls = %d, want 1", n)
	}
	if n := lookupsCounted(t, reg, "found"); n != 1 {
		t.Errorf("found lookups counted = %v, want 1", n)
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
