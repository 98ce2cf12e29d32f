package app

import (
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
	"github.com/nodeboot/nodeboot/internal/cluster/managerkit"
)

func TestParseFlagsDefaults(t *testing.T) {
	o, err := ParseFlags(nil)
	if err != nil {
		t.Fatalf("ParseFlags(nil): %v", err)
	}
	want := Options{
		Manager: managerkit.Options{
			LeaderElect: true, LeaderElectionNamespace: "kube-system", LeaderElectionID: "nodeboot-approver",
			MetricsBindAddress: "127.0.0.1:8080", HealthProbeBindAddress: "127.0.0.1:8081", PprofBindAddress: "0",
		},
		MaxExpiration:        8808 * time.Hour,
		NodeWait:             5 * time.Minute,
		EC2Inventory:         "auto",
		EC2InventoryCacheTTL: time.Minute,
		EC2APIQPS:            5, EC2APIBurst: 10,
		MaxSANs: 64, Workers: 64,
		EventQPS: 10, EventBurst: 50,
		LogLevel:  slog.LevelInfo,
		LogFormat: "json",
	}
	if !optionsEqual(o, want) {
		t.Fatalf("ParseFlags(nil) = %+v, want %+v", o, want)
	}
	wantPolicy := policy.Policy{MaxExpirationSeconds: 31708800}
	if got := o.Policy(); got.MaxExpirationSeconds != wantPolicy.MaxExpirationSeconds || got.MinExpirationSeconds != 0 ||
		got.HostnameRegex != nil || got.AllowedCIDRs != nil {
		t.Fatalf("Policy() = %+v, want %+v", got, wantPolicy)
	}
}

func TestParseFlagsLocalProcess(t *testing.T) {
	args := []string{
		"--kubeconfig", "/tmp/admin.kubeconfig", "--leader-elect=false",
		"--metrics-bind-address=0", "--health-probe-bind-address=127.0.0.1:0",
		"--allowed-cidrs=10.0.0.0/16,fd00::/8", "--allowed-cidrs", "192.168.1.0/24",
		"--hostname-regex", `ip-[0-9-]+\.ec2\.internal`,
		"--max-expiration=24h", "--min-expiration=1h", "--node-wait=30s",
		"--ec2-inventory=on", "--aws-region=eu-west-1", "--ec2-inventory-cache-ttl=5m", "--cluster-name=prod",
		"--ec2-api-qps=2", "--ec2-api-burst=4", "--max-sans=8", "--workers=4",
		"--kube-api-qps=100", "--kube-api-burst=200", "--event-qps=1", "--event-burst=5",
		"--log-level=debug", "--log-format=text",
	}
	o, err := ParseFlags(args)
	if err != nil {
		t.Fatalf("ParseFlags: %v", err)
	}
	want := Options{
		Kubeconfig: "/tmp/admin.kubeconfig",
		Manager: managerkit.Options{
			LeaderElectionNamespace: "kube-system", LeaderElectionID: "nodeboot-approver",
			MetricsBindAddress: "0", HealthProbeBindAddress: "127.0.0.1:0", PprofBindAddress: "0",
		},
		AllowedCIDRs: []netip.Prefix{
			netip.MustParsePrefix("10.0.0.0/16"), netip.MustParsePrefix("fd00::/8"), netip.MustParsePrefix("192.168.1.0/24"),
		},
		HostnameRegex:        regexp.MustCompile(`^(?:ip-[0-9-]+\.ec2\.internal)$`),
		MaxExpiration:        24 * time.Hour,
		MinExpiration:        time.Hour,
		NodeWait:             30 * time.Second,
		EC2Inventory:         "on",
		AWSRegion:            "eu-west-1",
		EC2InventoryCacheTTL: 5 * time.Minute,
		ClusterName:          "prod",
		EC2APIQPS:            2, EC2APIBurst: 4,
		MaxSANs: 8, Workers: 4,
		KubeAPIQPS: 100, KubeAPIBurst: 200,
		EventQPS: 1, EventBurst: 5,
		LogLevel:  slog.LevelDebug,
		LogFormat: "text",
	}
	if !optionsEqual(o, want) {
		t.Fatalf("ParseFlags = %+v, want %+v", o, want)
	}
	p := o.Policy()
	if p.MaxExpirationSeconds != 86400 || p.MinExpirationSeconds != 3600 || p.MaxSANs != 8 {
		t.Fatalf("Policy() expirations = %d, %d, SANs %d, want 86400, 3600, 8", p.MaxExpirationSeconds, p.MinExpirationSeconds, p.MaxSANs)
	}
	// The regex must match whole names only.
	for name, want := range map[string]bool{
		"ip-10-0-0-1.ec2.internal":          true,
		"ip-10-0-0-1.ec2.internal.evil.com": false,
		"x.ip-10-0-0-1.ec2.internal":        false,
	} {
		if got := p.HostnameRegex.MatchString(name); got != want {
			t.Errorf("HostnameRegex.MatchString(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestParseFlagsErrors(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "unknown flag", args: []string{"--bogus"}, wantErr: "unknown flag: --bogus"},
		{name: "positional argument", args: []string{"run"}, wantErr: `unexpected arguments ["run"]`},
		{name: "bad CIDR", args: []string{"--allowed-cidrs=10.0.0.0/33"}, wantErr: "--allowed-cidrs: netip.ParsePrefix"},
		{name: "CIDR with host bits", args: []string{"--allowed-cidrs=10.0.0.1/8"}, wantErr: "10.0.0.1/8 has host bits set; did you mean 10.0.0.0/8?"},
		{name: "bad regex", args: []string{"--hostname-regex=("}, wantErr: "--hostname-regex: error parsing regexp"},
		{name: "max expiration below API minimum", args: []string{"--max-expiration=5m"}, wantErr: "--max-expiration 5m0s is below the API minimum 10m0s"},
		{name: "max expiration too large", args: []string{"--max-expiration=700000h"}, wantErr: "--max-expiration 700000h0m0s is too large"},
		{name: "fractional seconds", args: []string{"--max-expiration=1h0.5s"}, wantErr: "is not a whole number of seconds"},
		{name: "min above max", args: []string{"--max-expiration=1h", "--min-expiration=2h"}, wantErr: "--min-expiration 2h0m0s exceeds --max-expiration 1h0m0s"},
		{name: "negative node wait", args: []string{"--node-wait=-1s"}, wantErr: "--node-wait -1s is negative"},
		{name: "bad duration", args: []string{"--node-wait=soon"}, wantErr: `invalid argument "soon"`},
		{name: "bad log level", args: []string{"--log-level=loud"}, wantErr: "--log-level"},
		{name: "bad log format", args: []string{"--log-format=xml"}, wantErr: `--log-format: "xml" is neither json nor text`},
		{name: "bad inventory mode", args: []string{"--ec2-inventory=yes"}, wantErr: `--ec2-inventory: "yes" is not auto, on or off`},
		{name: "negative cache TTL", args: []string{"--ec2-inventory-cache-ttl=-1s"}, wantErr: "--ec2-inventory-cache-ttl -1s is negative"},
		{name: "no EC2 calls", args: []string{"--ec2-api-qps=0"}, wantErr: "--ec2-api-qps 0 and --ec2-api-burst 10 must be positive"},
		{name: "no workers", args: []string{"--workers=0"}, wantErr: "--workers 0 and --max-sans 64 must be positive"},
		{name: "negative API QPS", args: []string{"--kube-api-qps=-1"}, wantErr: "--kube-api-qps -1 and --kube-api-burst 0 must not be negative"},
		{name: "no Events", args: []string{"--event-qps=0"}, wantErr: "--event-qps 0 and --event-burst 50 must be positive"},
		{name: "VPC without account", args: []string{"--cluster-vpc-id=vpc-0123456789abcdef0"}, wantErr: "--cluster-vpc-id and --cluster-account-id go together"},
		{name: "cluster named twice", args: []string{"--cluster-name=prod", "--cluster-vpc-id=vpc-0123456789abcdef0", "--cluster-account-id=111122223333"}, wantErr: "name the cluster twice"},
		{name: "malformed VPC", args: []string{"--cluster-vpc-id=vpc-12", "--cluster-account-id=111122223333"}, wantErr: `--cluster-vpc-id "vpc-12" is not a VPC ID`},
		{name: "malformed account", args: []string{"--cluster-vpc-id=vpc-0123456789abcdef0", "--cluster-account-id=1111"}, wantErr: `--cluster-account-id "1111" is not an AWS account ID`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFlags(tc.args)
			if !errors.Is(err, ErrUsage) {
				t.Fatalf("ParseFlags(%q) error = %v, want ErrUsage", tc.args, err)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("ParseFlags(%q) error = %q, want it to contain %q", tc.args, err, tc.wantErr)
			}
		})
	}
}

func TestParseFlagsHelp(t *testing.T) {
	for _, arg := range []string{"-h", "--help"} {
		if _, err := ParseFlags([]string{arg}); !errors.Is(err, pflag.ErrHelp) {
			t.Errorf("ParseFlags(%q) error = %v, want pflag.ErrHelp", arg, err)
		}
	}
}

// optionsEqual compares options, HostnameRegex by its text.
func optionsEqual(a, b Options) bool {
	ra, rb := fmt.Sprint(a.HostnameRegex), fmt.Sprint(b.HostnameRegex)
	a.HostnameRegex, b.HostnameRegex = nil, nil
	return reflect.DeepEqual(a, b) && ra == rb
}
