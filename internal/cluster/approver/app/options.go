package app

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/netip"
	"regexp"
	"time"

	"github.com/spf13/pflag"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/ec2inventory"
	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
	"github.com/nodeboot/nodeboot/internal/cluster/managerkit"
)

// Defaults of the command-line flags (those of the manager's flags are
// managerkit's).
const (
	// DefaultLeaderElectionID is the name of the approver's leader
	// election Lease.
	DefaultLeaderElectionID = "nodeboot-approver"
	// DefaultMaxExpiration is 367 days, the cap kubelet-csr-approver uses.
	DefaultMaxExpiration = 367 * 24 * time.Hour
	// DefaultNodeWait covers a kubelet whose serving CSR races its Node
	// registration.
	DefaultNodeWait = 5 * time.Minute
	// DefaultEC2InventoryCacheTTL is how long an instance EC2 described is
	// reused.
	DefaultEC2InventoryCacheTTL = time.Minute
	// DefaultWorkers is how many CSRs are decided at the same time. A
	// decision waits on one request (the approval) and never on EC2
	// (ec2inventory answers asynchronously); a worker's time is that
	// request's (35-66 ms in a 1,000-node join burst on the benchmark's
	// 2-core control plane, about 1 ms of it the approver's CPU), so the
	// workers are the approvals in flight. With 16, CSRs of that burst
	// waited 669 ms on average for a worker; with 64, 74 ms (make
	// bench-approver, docs/performance.md). The API server's priority and
	// fairness bounds what it serves at once anyway.
	DefaultWorkers = 64
	// DefaultKubeAPIQPS 0 sets no client-side limit on the requests to the
	// API server: the approver makes one request per CSR it decides, so its
	// rate follows the kubelets' own, which the API server's priority and
	// fairness already governs (kube-system service accounts are in its
	// workload-high level). client-go's default (5 a second) made a
	// 1,000-node join wait 200 s for approvals.
	DefaultKubeAPIQPS = 0
	// DefaultEventQPS and DefaultEventBurst bound the Events the approver
	// writes, on a client of their own: Events are queued (and dropped when
	// 1,000 wait) and never delay a decision.
	DefaultEventQPS   = 10
	DefaultEventBurst = 50
)

// Values of --ec2-inventory.
const (
	// EC2InventoryAuto checks against EC2 when an AWS region is found
	// (--aws-region, the SDK's environment and shared config, then the
	// instance metadata service) and the cluster is named; without either,
	// every CSR is denied (InventoryUnavailable): a Node's own addresses
	// are never trusted alone.
	EC2InventoryAuto = "auto"
	// EC2InventoryOn checks every Node against EC2; the approver refuses
	// to start without a region or the cluster's name.
	EC2InventoryOn = "on"
	// EC2InventoryOff checks against the Node's addresses only.
	EC2InventoryOff = "off"
)

// minAPIExpiration is the smallest spec.expirationSeconds the API accepts.
const minAPIExpiration = 10 * time.Minute

// ErrUsage marks invalid command-line arguments (exit code 2).
var ErrUsage = errors.New("invalid arguments")

// Options is the parsed command line.
type Options struct {
	// Kubeconfig is a kubeconfig path; empty means $KUBECONFIG, then the
	// in-cluster service account.
	Kubeconfig string
	// Manager holds leader election and the metrics and health probe
	// servers.
	Manager managerkit.Options
	// AllowedCIDRs must contain every IP SAN when not empty.
	AllowedCIDRs []netip.Prefix
	// HostnameRegex, anchored, must match every whole DNS SAN when not nil.
	HostnameRegex *regexp.Regexp
	// MaxExpiration and MinExpiration bound spec.expirationSeconds; 0 means
	// no bound.
	MaxExpiration time.Duration
	MinExpiration time.Duration
	// NodeWait is approver.Reconciler.NodeWait.
	NodeWait time.Duration
	// EC2Inventory is auto, on or off (see EC2InventoryAuto).
	EC2Inventory string
	// AWSRegion is the region of the EC2 API; empty means the SDK's
	// resolution, then the instance metadata service.
	AWSRegion string
	// EC2InventoryCacheTTL is how long a described instance is reused; 0
	// disables the cache.
	EC2InventoryCacheTTL time.Duration
	// ClusterName is the EKS cluster whose VPC and account
	// (eks:DescribeCluster) every Node's instance must be in.
	ClusterName string
	// ClusterVPCID and ClusterAccountID name them instead, for clusters
	// not on EKS.
	ClusterVPCID, ClusterAccountID string
	// EC2APIQPS and EC2APIBurst pace the approver's EC2 and EKS calls.
	EC2APIQPS   float64
	EC2APIBurst int
	// MaxSANs bounds the SANs of a request (policy.Policy.MaxSANs).
	MaxSANs int
	// Workers is how many CSRs are decided at the same time.
	Workers int
	// KubeAPIQPS and KubeAPIBurst limit the requests to the API server;
	// a QPS of 0 sets no client-side limit.
	KubeAPIQPS   float32
	KubeAPIBurst int
	// EventQPS and EventBurst limit the Events written.
	EventQPS   float32
	EventBurst int
	// LogLevel is the slog level; debug shows logr V(1) to V(4) lines.
	LogLevel slog.Level
	// LogFormat is "json" or "text".
	LogFormat string
}

// Policy returns the approver policy the options describe.
func (o Options) Policy() policy.Policy {
	return policy.Policy{
		AllowedCIDRs:         o.AllowedCIDRs,
		HostnameRegex:        o.HostnameRegex,
		MaxExpirationSeconds: int32(o.MaxExpiration / time.Second),
		MinExpirationSeconds: int32(o.MinExpiration / time.Second),
		MaxSANs:              o.MaxSANs,
	}
}

// rawFlags holds flag values before validation.
type rawFlags struct {
	cidrs         []string
	hostnameRegex string
	logLevel      string
}

// ParseFlags parses args (without the program name). It prints nothing;
// it returns pflag.ErrHelp for -h/--help and an error wrapping ErrUsage for
// invalid arguments.
func ParseFlags(args []string) (Options, error) {
	var o Options
	var raw rawFlags
	fs := newFlagSet(&o, &raw, io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return Options{}, err
		}
		return Options{}, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if fs.NArg() > 0 {
		return Options{}, fmt.Errorf("%w: unexpected arguments %q", ErrUsage, fs.Args())
	}
	if err := o.complete(raw); err != nil {
		return Options{}, fmt.Errorf("%w: %w", ErrUsage, err)
	}
	return o, nil
}

func newFlagSet(o *Options, raw *rawFlags, out io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet("nodeboot-approver", pflag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {}
	fs.SortFlags = false
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig file; empty: $KUBECONFIG, then the in-cluster service account")
	managerkit.AddFlags(fs, &o.Manager, managerkit.FlagDefaults{
		LeaderElectionID: DefaultLeaderElectionID,
		LeaderElectUsage: "elect a leader through a Lease so that only one replica decides",
	})
	managerkit.AddPprofFlag(fs, &o.Manager)
	fs.StringSliceVar(&raw.cidrs, "allowed-cidrs", nil, "comma-separated CIDRs that must contain every IP SAN (default: no extra limit)")
	fs.StringVar(&raw.hostnameRegex, "hostname-regex", "", "regular expression every DNS SAN must match in full (default: no extra limit)")
	fs.DurationVar(&o.MaxExpiration, "max-expiration", DefaultMaxExpiration, "longest spec.expirationSeconds to approve; 0: no limit")
	fs.DurationVar(&o.MinExpiration, "min-expiration", 0, "shortest spec.expirationSeconds to approve; 0: no limit")
	fs.DurationVar(&o.NodeWait, "node-wait", DefaultNodeWait, "how long after its creation a CSR waits for its Node to register, or for EC2 to answer, before it is denied")
	fs.StringVar(&o.EC2Inventory, "ec2-inventory", EC2InventoryAuto, "check SANs against the EC2 instance behind the Node: auto (when an AWS region is found), on or off")
	fs.StringVar(&o.AWSRegion, "aws-region", "", "region of the EC2 API (default: AWS_REGION, the shared config, then the instance metadata service); the endpoint follows AWS_ENDPOINT_URL(_EC2)")
	fs.DurationVar(&o.EC2InventoryCacheTTL, "ec2-inventory-cache-ttl", DefaultEC2InventoryCacheTTL, "how long an instance EC2 described is reused (an unknown one: 10s, or the TTL if shorter); 0 keeps answers only until the waiting CSRs are decided")
	fs.StringVar(&o.ClusterName, "cluster-name", "", "EKS cluster whose VPC and account (eks:DescribeCluster) every Node's instance must be in; required by the EC2 check")
	fs.StringVar(&o.ClusterVPCID, "cluster-vpc-id", "", "the cluster's VPC, instead of --cluster-name (clusters not on EKS); needs --cluster-account-id")
	fs.StringVar(&o.ClusterAccountID, "cluster-account-id", "", "the cluster's AWS account, instead of --cluster-name; needs --cluster-vpc-id")
	fs.Float64Var(&o.EC2APIQPS, "ec2-api-qps", ec2inventory.DefaultRate, "EC2 and EKS calls a second (each DescribeInstances answers up to 150 Nodes; during a join burst, one call per 2/QPS)")
	fs.IntVar(&o.EC2APIBurst, "ec2-api-burst", ec2inventory.DefaultBurst, "burst of EC2 and EKS calls")
	fs.IntVar(&o.MaxSANs, "max-sans", policy.DefaultMaxSANs, "most SANs a request may have")
	fs.IntVar(&o.Workers, "workers", DefaultWorkers, "CSRs decided at the same time")
	fs.Float32Var(&o.KubeAPIQPS, "kube-api-qps", DefaultKubeAPIQPS, "requests a second to the API server; 0: no client-side limit (the API server's priority and fairness applies)")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", 0, "burst of requests to the API server with --kube-api-qps; 0: twice the QPS")
	fs.Float32Var(&o.EventQPS, "event-qps", DefaultEventQPS, "Events written a second (queued apart from the decisions, which they never delay)")
	fs.IntVar(&o.EventBurst, "event-burst", DefaultEventBurst, "burst of Events written")
	fs.StringVar(&raw.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&o.LogFormat, "log-format", "json", "json or text")
	return fs
}

// complete validates the parsed flags and converts the raw values.
func (o *Options) complete(raw rawFlags) error {
	cidrs, err := parseCIDRs(raw.cidrs)
	if err != nil {
		return err
	}
	o.AllowedCIDRs = cidrs
	if raw.hostnameRegex != "" {
		re, err := regexp.Compile(`^(?:` + raw.hostnameRegex + `)$`)
		if err != nil {
			return fmt.Errorf("--hostname-regex: %w", err)
		}
		o.HostnameRegex = re
	}
	if err := o.LogLevel.UnmarshalText([]byte(raw.logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	if o.LogFormat != "json" && o.LogFormat != "text" {
		return fmt.Errorf("--log-format: %q is neither json nor text", o.LogFormat)
	}
	switch o.EC2Inventory {
	case EC2InventoryAuto, EC2InventoryOn, EC2InventoryOff:
	default:
		return fmt.Errorf("--ec2-inventory: %q is not auto, on or off", o.EC2Inventory)
	}
	return o.validateDurations()
}

func (o *Options) validateDurations() error {
	for _, d := range []struct {
		flag  string
		value time.Duration
	}{{"--max-expiration", o.MaxExpiration}, {"--min-expiration", o.MinExpiration}} {
		switch {
		case d.value == 0:
		case d.value < minAPIExpiration:
			return fmt.Errorf("%s %s is below the API minimum %s; use 0 for no limit", d.flag, d.value, minAPIExpiration)
		case d.value > math.MaxInt32*time.Second:
			return fmt.Errorf("%s %s is too large", d.flag, d.value)
		case d.value%time.Second != 0:
			return fmt.Errorf("%s %s is not a whole number of seconds", d.flag, d.value)
		}
	}
	if o.MaxExpiration > 0 && o.MinExpiration > o.MaxExpiration {
		return fmt.Errorf("--min-expiration %s exceeds --max-expiration %s", o.MinExpiration, o.MaxExpiration)
	}
	if o.NodeWait < 0 {
		return fmt.Errorf("--node-wait %s is negative", o.NodeWait)
	}
	if o.EC2InventoryCacheTTL < 0 {
		return fmt.Errorf("--ec2-inventory-cache-ttl %s is negative", o.EC2InventoryCacheTTL)
	}
	return o.validateLimits()
}

// validateLimits checks the rates, counts and the cluster's identity.
func (o *Options) validateLimits() error {
	switch {
	case o.EC2APIQPS <= 0 || o.EC2APIBurst < 1:
		return fmt.Errorf("--ec2-api-qps %g and --ec2-api-burst %d must be positive", o.EC2APIQPS, o.EC2APIBurst)
	case o.Workers < 1 || o.MaxSANs < 1:
		return fmt.Errorf("--workers %d and --max-sans %d must be positive", o.Workers, o.MaxSANs)
	case o.KubeAPIQPS < 0 || o.KubeAPIBurst < 0:
		return fmt.Errorf("--kube-api-qps %g and --kube-api-burst %d must not be negative", o.KubeAPIQPS, o.KubeAPIBurst)
	case o.EventQPS <= 0 || o.EventBurst < 1:
		return fmt.Errorf("--event-qps %g and --event-burst %d must be positive", o.EventQPS, o.EventBurst)
	case (o.ClusterVPCID == "") != (o.ClusterAccountID == ""):
		return errors.New("--cluster-vpc-id and --cluster-account-id go together")
	case o.ClusterVPCID != "" && o.ClusterName != "":
		return errors.New("--cluster-name and --cluster-vpc-id name the cluster twice; use one")
	case o.ClusterVPCID != "" && !vpcIDPattern.MatchString(o.ClusterVPCID):
		return fmt.Errorf("--cluster-vpc-id %q is not a VPC ID (vpc-<8 or 17 hex digits>)", o.ClusterVPCID)
	case o.ClusterAccountID != "" && !accountIDPattern.MatchString(o.ClusterAccountID):
		return fmt.Errorf("--cluster-account-id %q is not an AWS account ID (12 digits)", o.ClusterAccountID)
	}
	return nil
}

var (
	vpcIDPattern     = regexp.MustCompile(`^vpc-([0-9a-f]{8}|[0-9a-f]{17})$`)
	accountIDPattern = regexp.MustCompile(`^[0-9]{12}$`)
)

// parseCIDRs parses canonical CIDRs; a CIDR with host bits set is rejected
// because it usually means a typo in the mask.
func parseCIDRs(values []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, v := range values {
		p, err := netip.ParsePrefix(v)
		if err != nil {
			return nil, fmt.Errorf("--allowed-cidrs: %w", err)
		}
		if p != p.Masked() {
			return nil, fmt.Errorf("--allowed-cidrs: %s has host bits set; did you mean %s?", v, p.Masked())
		}
		out = append(out, p)
	}
	return out, nil
}
