package managerkit

import "github.com/spf13/pflag"

// Defaults of the common flags.
const (
	DefaultLeaderElectionNamespace = "kube-system"
	DefaultMetricsBindAddress      = "127.0.0.1:8080"
	DefaultHealthProbeBindAddress  = "127.0.0.1:8081"
	// DefaultPprofBindAddress disables net/http/pprof.
	DefaultPprofBindAddress = "0"
)

// Options are the manager settings every cluster-side binary takes from its
// command line.
type Options struct {
	// LeaderElect runs the controllers only in the replica holding the Lease
	// LeaderElectionNamespace/LeaderElectionID.
	LeaderElect bool
	// LeaderElectionNamespace is the namespace of the leader election Lease.
	LeaderElectionNamespace string
	// LeaderElectionID is the name of the leader election Lease.
	LeaderElectionID string
	// MetricsBindAddress is the host:port of the Prometheus metrics
	// endpoint; "0" disables it.
	MetricsBindAddress string
	// HealthProbeBindAddress is the host:port of /healthz and /readyz; "0"
	// disables them.
	HealthProbeBindAddress string
	// PprofBindAddress is the host:port of net/http/pprof; "0" or empty
	// disables it. Only binaries that call AddPprofFlag take it from their
	// command line.
	PprofBindAddress string
}

// FlagDefaults are what one binary's common flags say about it.
type FlagDefaults struct {
	// LeaderElectionID is the default of --leader-election-id: the binary's
	// own Lease name.
	LeaderElectionID string
	// LeaderElectUsage is the help text of --leader-elect, which says what
	// only the leader does.
	LeaderElectUsage string
}

// AddFlags registers --leader-elect, --leader-election-namespace,
// --leader-election-id, --metrics-bind-address and
// --health-probe-bind-address on fs, in that order, bound to o.
func AddFlags(fs *pflag.FlagSet, o *Options, d FlagDefaults) {
	fs.BoolVar(&o.LeaderElect, "leader-elect", true, d.LeaderElectUsage)
	fs.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", DefaultLeaderElectionNamespace, "namespace of the leader election Lease")
	fs.StringVar(&o.LeaderElectionID, "leader-election-id", d.LeaderElectionID, "name of the leader election Lease")
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", DefaultMetricsBindAddress, "host:port of the Prometheus metrics endpoint; 0 disables it")
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", DefaultHealthProbeBindAddress, "host:port of /healthz and /readyz; 0 disables them")
}

// AddPprofFlag registers --pprof-bind-address on fs, bound to o.
func AddPprofFlag(fs *pflag.FlagSet, o *Options) {
	fs.StringVar(&o.PprofBindAddress, "pprof-bind-address", DefaultPprofBindAddress, "host:port of net/http/pprof; 0 disables it")
}
