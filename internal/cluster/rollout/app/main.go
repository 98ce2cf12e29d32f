// Package app wires the nodeboot-rollout binary: the controller
// (controller-runtime manager with leader election, Events and Prometheus
// metrics) and the command line that plans, starts, watches, pauses,
// resumes and aborts rollouts.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/aws/awsconfig/sdkdefault"
	"github.com/nodeboot/nodeboot/internal/version"
)

// Exit codes of Main.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// userAgent identifies the binary in API server audit logs.
const userAgent = "nodeboot-rollout"

// ErrUsage marks invalid command-line arguments (exit code 2).
var ErrUsage = errors.New("invalid arguments")

// Env is what Main runs with.
type Env struct {
	Stdout, Stderr io.Writer
	// Terminal says whether Stdout is a terminal (status --watch redraws
	// in place).
	Terminal bool
}

// Usage is the top-level help.
const Usage = `nodeboot-rollout replaces every node of an Auto Scaling group with nodes of a new
launch-template version, the way EKS managed node groups upgrade.

Usage:
  nodeboot-rollout controller [flags]        run the NodeGroupRollout controller
  nodeboot-rollout plan   --group ASG [flags] show what a rollout would do, per node
  nodeboot-rollout start  NAME --group ASG [flags]
  nodeboot-rollout status NAME [--watch] [-o text|json]
  nodeboot-rollout pause  NAME
  nodeboot-rollout resume NAME [--force]
  nodeboot-rollout abort  NAME
  nodeboot-rollout version

Run 'nodeboot-rollout COMMAND --help' for a command's flags.
`

// Main runs one command and returns the exit code.
func Main(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 {
		fmt.Fprintf(env.Stderr, "nodeboot-rollout: no command given\n\n%s", Usage)
		return ExitUsage
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "controller":
		err = runController(ctx, rest, env)
	case "plan":
		err = runPlan(ctx, rest, env)
	case "start":
		err = runStart(ctx, rest, env)
	case "status":
		err = runStatus(ctx, rest, env)
	case "pause", "resume", "abort":
		err = runSwitch(ctx, cmd, rest, env)
	case "version", "--version":
		_, err = fmt.Fprintf(env.Stdout, "nodeboot-rollout %s\n", version.String())
	case "help", "-h", "--help":
		_, err = io.WriteString(env.Stdout, Usage)
	default:
		err = fmt.Errorf("%w: unknown command %q", ErrUsage, cmd)
	}
	switch {
	case err == nil, errors.Is(err, pflag.ErrHelp):
		return ExitOK
	case errors.Is(err, ErrUsage):
		fmt.Fprintf(env.Stderr, "nodeboot-rollout: %v\nRun 'nodeboot-rollout help' for usage.\n", err)
		return ExitUsage
	case errors.Is(err, errFailed):
		return ExitError // the report already said why
	default:
		fmt.Fprintf(env.Stderr, "nodeboot-rollout: %v\n", err)
		return ExitError
	}
}

// errFailed is returned when a command's output already explains a failure.
var errFailed = errors.New("failed")

// newFlagSet returns a flag set printing its help to out on --help.
func newFlagSet(name string, out io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(out)
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprintf(out, "Usage of nodeboot-rollout %s:\n%s", name, fs.FlagUsages())
	}
	return fs
}

// parse parses args and wraps flag errors in ErrUsage; nargs is the number
// of positional arguments wanted.
func parse(fs *pflag.FlagSet, args []string, nargs int) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %s: %w", ErrUsage, fs.Name(), err)
	}
	if fs.NArg() != nargs {
		what := "no arguments"
		if nargs == 1 {
			what = "one argument, the rollout's name"
		}
		return fmt.Errorf("%w: %s takes %s, got %q", ErrUsage, fs.Name(), what, fs.Args())
	}
	return nil
}

// restConfig loads the kubeconfig at path, else $KUBECONFIG, else
// ~/.kube/config, else the in-cluster service account.
func restConfig(path string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if path != "" {
		rules.ExplicitPath = path
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		if in, inErr := rest.InClusterConfig(); inErr == nil {
			cfg, err = in, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("load Kubernetes client configuration: %w", err)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = userAgent
	return cfg, nil
}

// awsLoader returns the AWS configuration of a region (bounded retries,
// AWS_ENDPOINT_URL honoured).
func awsLoader(log *slog.Logger) func(ctx context.Context, region string) (aws.Config, error) {
	return func(ctx context.Context, region string) (aws.Config, error) {
		return sdkdefault.Load(ctx, awsconfig.Options{Region: region, Logger: log})
	}
}

func newLogger(w io.Writer, level slog.Level, format string) logr.Logger {
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewJSONHandler(w, opts)
	if format == "text" {
		h = slog.NewTextHandler(w, opts)
	}
	return logr.FromSlogHandler(h)
}

// discard is a logger for commands that only print.
func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
