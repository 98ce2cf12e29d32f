package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Exit codes of Main.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// userAgent identifies the approver in API server audit logs.
const userAgent = "nodeboot-approver"

// Main runs the approver until ctx is cancelled and returns the exit code.
// args excludes the program name; help goes to stdout, logs and usage
// errors to stderr.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	opts, err := ParseFlags(args)
	switch {
	case errors.Is(err, pflag.ErrHelp):
		printUsage(stdout)
		return ExitOK
	case err != nil:
		fmt.Fprintf(stderr, "nodeboot-approver: %v\nRun 'nodeboot-approver --help' for usage.\n", err)
		return ExitUsage
	}
	log := newLogger(stderr, opts)
	if err := run(ctx, opts, log); err != nil {
		log.Error(err, "approver failed")
		return ExitError
	}
	return ExitOK
}

func run(ctx context.Context, opts Options, log logr.Logger) error {
	// controller-runtime and client-go (leader election) log through
	// their package loggers; point them at ours.
	ctrllog.SetLogger(log)
	klog.SetLogger(log)

	cfg, err := restConfig(opts.Kubeconfig)
	if err != nil {
		return err
	}
	mgr, err := NewManager(ctx, cfg, opts, log, ctrlmetrics.Registry)
	if err != nil {
		return err
	}
	log.Info("starting nodeboot-approver", "leaderElect", opts.Manager.LeaderElect,
		"leaderElectionNamespace", opts.Manager.LeaderElectionNamespace, "nodeWait", opts.NodeWait,
		"allowedCIDRs", fmt.Sprint(opts.AllowedCIDRs), "hostnameRegex", regexString(opts),
		"maxExpiration", opts.MaxExpiration, "minExpiration", opts.MinExpiration, "maxSANs", opts.MaxSANs,
		"workers", opts.Workers, "kubeAPIQPS", opts.KubeAPIQPS, "kubeAPIBurst", opts.KubeAPIBurst, "eventQPS", opts.EventQPS)
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("run manager: %w", err)
	}
	return nil
}

// restConfig loads the kubeconfig at path, else $KUBECONFIG, else the
// in-cluster service account configuration.
func restConfig(path string) (*rest.Config, error) {
	if path == "" {
		path = os.Getenv(clientcmd.RecommendedConfigPathEnvVar)
	}
	var cfg *rest.Config
	var err error
	if path != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", path)
	} else {
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("load Kubernetes client configuration: %w", err)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = userAgent
	return cfg, nil
}

func newLogger(w io.Writer, opts Options) logr.Logger {
	handlerOpts := &slog.HandlerOptions{Level: opts.LogLevel}
	var h slog.Handler = slog.NewJSONHandler(w, handlerOpts)
	if opts.LogFormat == "text" {
		h = slog.NewTextHandler(w, handlerOpts)
	}
	return logr.FromSlogHandler(h)
}

func printUsage(w io.Writer) {
	var o Options
	var raw rawFlags
	fs := newFlagSet(&o, &raw, w)
	fmt.Fprintf(w, "nodeboot-approver approves kubelet serving CSRs whose SANs match the requesting Node's addresses\n"+
		"and, on EC2, the addresses of the instance behind the Node (ec2:DescribeInstances).\n\n"+
		"Usage:\n  nodeboot-approver [flags]\n\nFlags:\n%s", fs.FlagUsages())
}

func regexString(opts Options) string {
	if opts.HostnameRegex == nil {
		return ""
	}
	return opts.HostnameRegex.String()
}
