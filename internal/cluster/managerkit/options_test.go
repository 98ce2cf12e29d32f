package managerkit

import (
	"io"
	"testing"

	"github.com/spf13/pflag"
)

var testDefaults = FlagDefaults{LeaderElectionID: "nodeboot-test", LeaderElectUsage: "elect a leader through a Lease so that only one replica acts"}

// parse registers the common flags (and --pprof-bind-address when pprof)
// on a new flag set and parses args.
func parse(t *testing.T, pprof bool, args ...string) Options {
	t.Helper()
	var o Options
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	AddFlags(fs, &o, testDefaults)
	if pprof {
		AddPprofFlag(fs, &o)
	}
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	return o
}

func TestAddFlags(t *testing.T) {
	defaults := Options{
		LeaderElect: true, LeaderElectionNamespace: "kube-system", LeaderElectionID: "nodeboot-test",
		MetricsBindAddress: "127.0.0.1:8080", HealthProbeBindAddress: "127.0.0.1:8081",
	}
	tests := []struct {
		name  string
		pprof bool
		args  []string
		want  Options
	}{
		{name: "defaults", want: defaults},
		{name: "defaults with pprof", pprof: true, want: Options{
			LeaderElect: true, LeaderElectionNamespace: "kube-system", LeaderElectionID: "nodeboot-test",
			MetricsBindAddress: "127.0.0.1:8080", HealthProbeBindAddress: "127.0.0.1:8081", PprofBindAddress: "0",
		}},
		{name: "local process", args: []string{"--leader-elect=false", "--metrics-bind-address=0", "--health-probe-bind-address=127.0.0.1:0"}, want: Options{
			LeaderElectionNamespace: "kube-system", LeaderElectionID: "nodeboot-test", MetricsBindAddress: "0", HealthProbeBindAddress: "127.0.0.1:0",
		}},
		{name: "every flag", pprof: true, args: []string{
			"--leader-elect", "--leader-election-namespace", "nodeboot", "--leader-election-id=other",
			"--metrics-bind-address=:9090", "--health-probe-bind-address=:9091", "--pprof-bind-address=127.0.0.1:6060",
		}, want: Options{
			LeaderElect: true, LeaderElectionNamespace: "nodeboot", LeaderElectionID: "other",
			MetricsBindAddress: ":9090", HealthProbeBindAddress: ":9091", PprofBindAddress: "127.0.0.1:6060",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parse(t, tc.pprof, tc.args...); got != tc.want {
				t.Errorf("options = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestAddFlagsHelp pins the flags' names, order, defaults and help texts,
// which the binaries' --help shows their users.
func TestAddFlagsHelp(t *testing.T) {
	var o Options
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	AddFlags(fs, &o, testDefaults)
	AddPprofFlag(fs, &o)
	want := []struct{ name, def, usage string }{
		{"leader-elect", "true", "elect a leader through a Lease so that only one replica acts"},
		{"leader-election-namespace", "kube-system", "namespace of the leader election Lease"},
		{"leader-election-id", "nodeboot-test", "name of the leader election Lease"},
		{"metrics-bind-address", "127.0.0.1:8080", "host:port of the Prometheus metrics endpoint; 0 disables it"},
		{"health-probe-bind-address", "127.0.0.1:8081", "host:port of /healthz and /readyz; 0 disables them"},
		{"pprof-bind-address", "0", "host:port of net/http/pprof; 0 disables it"},
	}
	var got []*pflag.Flag
	fs.SortFlags = false
	fs.VisitAll(func(f *pflag.Flag) { got = append(got, f) })
	if len(got) != len(want) {
		t.Fatalf("%d flags, want %d", len(got), len(want))
	}
	for i, w := range want {
		t.Run(w.name, func(t *testing.T) {
			f := got[i]
			if f.Name != w.name || f.DefValue != w.def || f.Usage != w.usage {
				t.Errorf("flag %d = --%s (default %q) %q, want --%s (default %q) %q", i, f.Name, f.DefValue, f.Usage, w.name, w.def, w.usage)
			}
		})
	}
}
