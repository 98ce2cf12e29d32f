// Package cli parses nodeboot's command line (drop-in compatible with
// nodeadm's) and maps outcomes to exit codes: 0 ok, 1 error, 2 usage.
package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/nodeboot/nodeboot/internal/node/bundle"
	"github.com/nodeboot/nodeboot/internal/node/doctor"
	"github.com/nodeboot/nodeboot/internal/node/joinwait"
)

// ErrUsage marks command-line mistakes (exit code 2).
var ErrUsage = errors.New("usage")

// Commands.
const (
	CmdInit        = "init"
	CmdConfigCheck = "config check"
	CmdConfigDump  = "config dump"
	CmdVersion     = "version"
	CmdHelp        = "help"
	CmdConvert     = "convert"
	CmdBootstrapSh = "bootstrap-sh"
	CmdRollout     = "rollout"
	CmdAccess      = "access"
	CmdDoctor      = "doctor"
	CmdBundle      = "bundle"
)

// Phases that `init --skip` accepts.
const (
	PhaseConfig = "config"
	PhaseRun    = "run"
)

// Daemons that `init --daemon` accepts.
var knownDaemons = []string{"containerd", "kubelet"}

// DefaultSource is read when no --config-source is given.
const DefaultSource = "imds://user-data"

// Invocation is a parsed command line.
type Invocation struct {
	Command string
	Sources []string
	Cache   string
	Skip    []string
	// Daemons limits which daemons are configured and started; nil means all.
	Daemons []string
	Root    string
	Output  string
	// OutputPath is nodeadm's `config dump --config-output PATH`.
	OutputPath string
	// Verbose turns on debug logging.
	Verbose bool
	// Args are the positional arguments: convert's FILE, bootstrap-sh's
	// bootstrap.sh arguments.
	Args []string
	// To and From are convert's target and source formats.
	To, From string
	// Strict makes convert fail when a setting cannot be expressed, and
	// userdata merge when a user setting is overridden, and init refuse
	// what nodeadm would ignore (unknown node.eks.aws fields).
	Strict bool
	// UserData holds the userdata commands' and config check --target's
	// options (userdata.go).
	UserData UserDataOptions
	// Timeout bounds the whole run: init, bootstrap-sh, config check and
	// dump (0 means DefaultTimeout) and doctor (doctor.DefaultTimeout).
	Timeout time.Duration
	// Since is the bundle's log window.
	Since time.Duration
	// RegistrationTimeout is how long init's run phase waits for the Node
	// to register (0: it does not wait).
	RegistrationTimeout time.Duration
	// Action and Interface are udev-net-manager's udev event.
	Action, Interface string
}

// Skips reports whether phase was skipped.
func (inv Invocation) Skips(phase string) bool { return slices.Contains(inv.Skip, phase) }

// WantsDaemon reports whether daemon is in scope.
func (inv Invocation) WantsDaemon(name string) bool {
	return inv.Daemons == nil || slices.Contains(inv.Daemons, name)
}

// Parse parses args (without the program name).
func Parse(args []string) (Invocation, error) {
	if len(args) == 0 {
		return Invocation{}, fmt.Errorf("%w: no command given", ErrUsage)
	}
	switch args[0] {
	case "init":
		return parseInit(args[1:])
	case "config":
		return parseConfig(args[1:])
	case "convert":
		return parseConvert(args[1:])
	case "bootstrap-sh":
		return parseBootstrapSh(args[1:])
	case "rollout":
		// Everything after "rollout" belongs to nodeboot-rollout.
		return Invocation{Command: CmdRollout, Args: args[1:]}, nil
	case "access":
		// Everything after "access" belongs to nodeboot-access.
		return Invocation{Command: CmdAccess, Args: args[1:]}, nil
	case "userdata":
		return parseUserData(args[1:])
	case "doctor":
		return parseDoctor(args[1:])
	case "bundle":
		return parseBundle(args[1:])
	case "internal":
		return parseInternal(args[1:])
	case "version", "--version":
		if len(args) > 1 {
			return Invocation{}, fmt.Errorf("%w: version takes no arguments, got %q", ErrUsage, args[1:])
		}
		return Invocation{Command: CmdVersion}, nil
	case "help", "-h", "--help":
		return Invocation{Command: CmdHelp}, nil
	}
	return Invocation{}, fmt.Errorf("%w: unknown command %q", ErrUsage, args[0])
}

func newFlagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	return fs
}

// addCommon adds the sources, root and logging flags and the whole-run
// --timeout of the commands that resolve a config.
func addCommon(fs *pflag.FlagSet, inv *Invocation) {
	addSources(fs, inv)
	addTimeout(fs, inv)
}

// addSources adds the sources, root and logging flags.
func addSources(fs *pflag.FlagSet, inv *Invocation) {
	fs.StringArrayVarP(&inv.Sources, "config-source", "c", nil, "config source URI (repeatable, merged in order): imds://user-data, file:///path")
	fs.StringVar(&inv.Root, "root", "/", "directory every path is taken under")
	fs.BoolVarP(&inv.Verbose, "verbose", "v", false, "debug logging")
	fs.Bool("development", false, "alias of --verbose (nodeadm compatibility)")
}

func addTimeout(fs *pflag.FlagSet, inv *Invocation) {
	fs.DurationVar(&inv.Timeout, "timeout", DefaultTimeout, "give up (exit 1, naming what was being waited for) after this long")
}

func checkTimeout(inv Invocation) error {
	if inv.Timeout <= 0 {
		return fmt.Errorf("%w: --timeout must be positive, got %s", ErrUsage, inv.Timeout)
	}
	return nil
}

func finish(fs *pflag.FlagSet, inv *Invocation, args []string) error {
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %s %v", ErrUsage, fs.Name(), err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: %s takes no arguments, got %q", ErrUsage, fs.Name(), fs.Args())
	}
	if dev, _ := fs.GetBool("development"); dev {
		inv.Verbose = true
	}
	if len(inv.Sources) == 0 {
		inv.Sources = []string{DefaultSource}
	}
	for _, s := range inv.Sources {
		if !strings.HasPrefix(s, "imds://") && !strings.HasPrefix(s, "file://") {
			return fmt.Errorf("%w: unsupported config source %q (use imds://user-data or file:///path)", ErrUsage, s)
		}
	}
	if inv.Root == "" {
		return fmt.Errorf("%w: --root must not be empty", ErrUsage)
	}
	if fs.Lookup("timeout") == nil {
		return nil
	}
	return checkTimeout(*inv)
}

func parseInit(args []string) (Invocation, error) {
	inv := Invocation{Command: CmdInit}
	fs := newFlagSet("init")
	addCommon(fs, &inv)
	fs.StringVar(&inv.Cache, "config-cache", "", "cache of the resolved config (nodeadm uses /run/eks/nodeadm/config.json)")
	fs.StringArrayVarP(&inv.Skip, "skip", "s", nil, "phase to skip: config or run (repeatable)")
	fs.BoolVar(&inv.Strict, "strict", false, "refuse what nodeadm ignores (unknown fields of node.eks.aws documents) instead of warning")
	var daemons []string
	fs.StringArrayVarP(&daemons, "daemon", "d", nil, "daemon to configure and start: containerd or kubelet (repeatable; \"\" for none)")
	fs.DurationVar(&inv.RegistrationTimeout, "registration-timeout", joinwait.DefaultTimeout, "run phase: how long to wait for the Node to register before running the doctor and failing (0: do not wait)")
	if err := finish(fs, &inv, args); err != nil {
		return inv, err
	}
	if inv.RegistrationTimeout < 0 {
		return inv, fmt.Errorf("%w: --registration-timeout %s: must not be negative", ErrUsage, inv.RegistrationTimeout)
	}

	for _, p := range inv.Skip {
		if p != PhaseConfig && p != PhaseRun {
			return inv, fmt.Errorf("%w: --skip %q: want %q or %q", ErrUsage, p, PhaseConfig, PhaseRun)
		}
	}
	if fs.Changed("daemon") {
		inv.Daemons = []string{}
		for _, d := range daemons {
			if d == "" {
				continue
			}
			if !slices.Contains(knownDaemons, d) {
				return inv, fmt.Errorf("%w: --daemon %q: want one of %v", ErrUsage, d, knownDaemons)
			}
			inv.Daemons = append(inv.Daemons, d)
		}
	}
	// The default wait is for a kubelet init starts; one started by
	// someone else is waited for only when asked.
	if !inv.WantsDaemon("kubelet") && !fs.Changed("registration-timeout") {
		inv.RegistrationTimeout = 0
	}
	return inv, nil
}

func parseConfig(args []string) (Invocation, error) {
	if len(args) == 0 {
		return Invocation{}, fmt.Errorf("%w: config needs a subcommand: check or dump", ErrUsage)
	}
	var inv Invocation
	var formats []string
	switch args[0] {
	case "check":
		inv.Command, inv.Output, formats = CmdConfigCheck, "text", []string{"text", "json"}
	case "dump":
		inv.Command, inv.Output, formats = CmdConfigDump, "yaml", []string{"yaml", "json"}
	default:
		return inv, fmt.Errorf("%w: unknown config subcommand %q (want check or dump)", ErrUsage, args[0])
	}
	fs := newFlagSet("config " + args[0])
	addCommon(fs, &inv)
	fs.StringVarP(&inv.Output, "output", "o", inv.Output, "output format: "+strings.Join(formats, "|"))
	if inv.Command == CmdConfigDump {
		fs.StringVar(&inv.Cache, "config-cache", "", "cache of the resolved config")
		fs.StringVar(&inv.OutputPath, "config-output", "", "write to this file instead of stdout (nodeadm compatibility)")
	} else {
		addTargetFlags(&inv, fs)
	}
	if err := finish(fs, &inv, args[1:]); err != nil {
		return inv, err
	}
	if err := checkTargetFlags(inv.UserData); err != nil {
		return inv, err
	}
	if !slices.Contains(formats, inv.Output) {
		return inv, fmt.Errorf("%w: -o %q: want one of %v", ErrUsage, inv.Output, formats)
	}
	return inv, nil
}

// Formats convert reads (--from) and writes (--to).
var (
	convertSources = []string{"auto", "nodeconfig", "bootstrap-sh", "bottlerocket"}
	convertTargets = []string{"nodeconfig", "bootstrap-sh", "bottlerocket", "windows"}
)

func parseConvert(args []string) (Invocation, error) {
	inv := Invocation{Command: CmdConvert}
	fs := newFlagSet("convert")
	fs.StringVar(&inv.To, "to", "", "target format: "+strings.Join(convertTargets, "|"))
	fs.StringVar(&inv.From, "from", "auto", "source format: "+strings.Join(convertSources, "|"))
	fs.BoolVar(&inv.Strict, "strict", false, "exit 1 when a setting cannot be expressed in the target")
	fs.BoolVarP(&inv.Verbose, "verbose", "v", false, "debug logging")
	if err := fs.Parse(args); err != nil {
		return inv, fmt.Errorf("%w: convert %v", ErrUsage, err)
	}
	inv.Args = fs.Args()
	switch {
	case !slices.Contains(convertTargets, inv.To):
		return inv, fmt.Errorf("%w: convert --to %q: want one of %v", ErrUsage, inv.To, convertTargets)
	case !slices.Contains(convertSources, inv.From):
		return inv, fmt.Errorf("%w: convert --from %q: want one of %v", ErrUsage, inv.From, convertSources)
	case len(inv.Args) != 1:
		return inv, fmt.Errorf("%w: convert takes exactly one FILE (or - for standard input)", ErrUsage)
	}
	return inv, nil
}

// parseBootstrapSh takes bootstrap.sh's own arguments verbatim. nodeboot
// options, if any, come first and end with "--":
// nodeboot bootstrap-sh [--root DIR] [--skip run] -- CLUSTER [FLAGS...].
func parseBootstrapSh(args []string) (Invocation, error) {
	inv := Invocation{Command: CmdBootstrapSh, Root: "/"}
	sep := slices.Index(args, "--")
	if sep < 0 {
		inv.Args = args
		return inv, nil
	}
	fs := newFlagSet("bootstrap-sh")
	fs.StringVar(&inv.Root, "root", "/", "directory every path is taken under")
	fs.StringArrayVarP(&inv.Skip, "skip", "s", nil, "phase to skip: config or run")
	fs.BoolVarP(&inv.Verbose, "verbose", "v", false, "debug logging")
	fs.StringVar(&inv.Cache, "config-cache", "", "cache of the resolved config")
	addTimeout(fs, &inv)
	if err := fs.Parse(args[:sep]); err != nil || fs.NArg() > 0 {
		return inv, fmt.Errorf("%w: bootstrap-sh options before --: %v %v", ErrUsage, err, fs.Args())
	}
	inv.Args = args[sep+1:]
	return inv, checkTimeout(inv)
}

func parseDoctor(args []string) (Invocation, error) {
	inv := Invocation{Command: CmdDoctor, Output: "text"}
	fs := newFlagSet("doctor")
	addSources(fs, &inv)
	fs.StringVarP(&inv.Output, "output", "o", inv.Output, "output format: text|json")
	fs.DurationVar(&inv.Timeout, "timeout", doctor.DefaultTimeout, "bound on the whole run")
	if err := finish(fs, &inv, args); err != nil {
		return inv, err
	}
	switch {
	case inv.Output != "text" && inv.Output != "json":
		return inv, fmt.Errorf("%w: -o %q: want text or json", ErrUsage, inv.Output)
	case inv.Timeout <= 0:
		return inv, fmt.Errorf("%w: --timeout %s: must be positive", ErrUsage, inv.Timeout)
	}
	return inv, nil
}

func parseBundle(args []string) (Invocation, error) {
	inv := Invocation{Command: CmdBundle}
	fs := newFlagSet("bundle")
	addSources(fs, &inv)
	fs.DurationVar(&inv.Since, "since", bundle.DefaultSince, "log window: logs of this long before now")
	fs.StringVar(&inv.OutputPath, "out", bundle.DefaultPath, "where to write the bundle (a node path, under --root)")
	fs.DurationVar(&inv.Timeout, "timeout", bundle.DefaultRunTimeout, "bound on the whole run (items not reached are listed as skipped)")
	if err := finish(fs, &inv, args); err != nil {
		return inv, err
	}
	switch {
	case inv.Timeout <= 0:
		return inv, fmt.Errorf("%w: --timeout %s: must be positive", ErrUsage, inv.Timeout)
	case inv.Since <= 0:
		return inv, fmt.Errorf("%w: --since %s: must be positive", ErrUsage, inv.Since)
	case inv.OutputPath == "":
		return inv, fmt.Errorf("%w: --out must not be empty", ErrUsage)
	}
	return inv, nil
}

// Usage is the help text.
const Usage = `nodeboot — turns EC2 user data into a configured Kubernetes node.

Usage:
  nodeboot init   [-c|--config-source URI]... [--config-cache PATH] [-s|--skip config|run]... [-d|--daemon NAME]... [--root DIR]
                  [--timeout 12m] [--registration-timeout D] [--strict]
  nodeboot doctor [-c URI]... [--root DIR] [-o text|json] [--timeout D]
  nodeboot bundle [-c URI]... [--root DIR] [--since D] [--out PATH] [--timeout D]
  nodeboot config check [-c URI]... [--root DIR] [-o text|json] [--timeout 12m]
        [--target eks-managed|karpenter|self-managed --family F [--node-group NODEGROUP.yaml]]
  nodeboot config dump  [-c URI]... [--root DIR] [-o yaml|json] [--timeout 12m]
  nodeboot convert --to nodeconfig|bootstrap-sh|bottlerocket|windows [--from auto] [--strict] FILE
  nodeboot bootstrap-sh [--root DIR] [--skip run] [--timeout 12m] -- CLUSTER [bootstrap.sh flags...]
  nodeboot rollout plan|start|status|pause|resume|abort|controller ...   (runs nodeboot-rollout)
  nodeboot access check|fix --cluster NAME [--group ASG|-f NODEGROUP|--role ARN]...   (runs nodeboot-access)
  nodeboot userdata generate -f NODEGROUP.yaml --family al2|al2023|bottlerocket|windows
        [--as eks|eksctl|karpenter] [--user-data FILE]...
  nodeboot userdata merge -f NODEGROUP.yaml --family F [--as eks|karpenter] [--strict]
        [-o text|json] [--user-data-out FILE] USER_PART...
  nodeboot version

Config sources (merged in order, later wins): imds://user-data (default),
file:///path (a file: MIME or YAML/JSON, base64 and gzip detected; a
directory: *.yaml, *.yml, *.json drop-ins in lexical order).

--timeout bounds the whole run; every network wait has its own, shorter
bound as well (docs/failure-bounds.md).

init's run phase waits --registration-timeout (default 5m when it starts
the kubelet, 0 to skip) for the Node to register; if it does not, the
doctor's report goes to the console and into a support bundle, and init
fails.

doctor checks why a node does not join, from the user data to the
container runtime; it exits 1 when a check fails. bundle writes a redacted
support bundle (default /var/log/support/nodeboot-logs.tar.gz, fetchable
with kubectl get --raw /api/v1/nodes/NODE/proxy/logs/support/nodeboot-logs.tar.gz).

Exit codes: 0 ok, 1 error, 2 usage.

` + internalUsage
