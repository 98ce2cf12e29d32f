package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"sigs.k8s.io/yaml"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/node/agent"
	"github.com/nodeboot/nodeboot/internal/version"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// Env is the process environment Main runs in.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Setenv         func(key, value string) error
	// Environ lists the environment (bootstrap.sh reads options from it).
	Environ func() []string
	// Exec replaces the process (nodeboot rollout); nil means syscall.Exec.
	Exec func(path string, argv, envv []string) error
	// Getwd returns the working directory, which nodeadm's relative
	// file://config.yaml sources are read from; nil means os.Getwd.
	Getwd func() (string, error)
}

// Main runs one command and returns the exit code.
func Main(ctx context.Context, args []string, env Env) int {
	inv, err := Parse(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "nodeboot: %v\n\n%s", err, Usage)
		return ExitUsage
	}
	if inv.Sources, err = absoluteSources(inv.Sources, inv.Root, env.Getwd); err != nil {
		fmt.Fprintf(env.Stderr, "nodeboot: %v\n", err)
		return ExitUsage
	}
	log := newLogger(env.Stderr, inv.Verbose)
	if err := dispatch(ctx, inv, env, log); err != nil {
		fmt.Fprintf(env.Stderr, "nodeboot: %v\n", err)
		if errors.Is(err, ErrUsage) {
			return ExitUsage
		}
		return ExitError
	}
	return ExitOK
}

func newLogger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	// No timestamps: the journal (or the terminal) already has them.
	dropTime := func(groups []string, a slog.Attr) slog.Attr {
		if len(groups) == 0 && a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: dropTime}))
}

// errInvalid is returned by config check when the config has errors; the
// report already went to stdout.
var errInvalid = errors.New("configuration is invalid")

func dispatch(ctx context.Context, inv Invocation, env Env, log *slog.Logger) error {
	switch inv.Command {
	case CmdVersion:
		_, err := fmt.Fprintf(env.Stdout, "nodeboot %s\n", version.String())
		return err
	case CmdHelp:
		_, err := io.WriteString(env.Stdout, Usage)
		return err
	case CmdConfigCheck:
		return withDeadline(ctx, inv, func(ctx context.Context) error { return check(ctx, inv, env, log) })
	case CmdConfigDump:
		return withDeadline(ctx, inv, func(ctx context.Context) error { return dump(ctx, inv, env, log) })
	case CmdConvert:
		return runConvert(inv, env, env.Stdin)
	case CmdBootstrapSh:
		return withDeadline(ctx, inv, func(ctx context.Context) error { return runBootstrapSh(ctx, inv, env, log) })
	case CmdRollout:
		return execCompanion(RolloutBinary, inv.Args, env)
	case CmdAccess:
		return execCompanion(AccessBinary, inv.Args, env)
	case CmdUserDataGenerate:
		return runUserDataGenerate(inv, env)
	case CmdUserDataMerge:
		return runUserDataMerge(inv, env)
	case CmdBootHook, CmdUdevNetManager:
		return runInternal(ctx, inv, log)
	case CmdInit:
		a := newAgent(inv, env, log)
		err := withDeadline(ctx, inv, func(ctx context.Context) error {
			return a.Init(ctx, agent.InitOptions{
				Sources: inv.Sources, CachePath: inv.Cache,
				SkipConfig: inv.Skips(PhaseConfig), SkipRun: inv.Skips(PhaseRun),
				Scope: agent.Scope{Containerd: inv.WantsDaemon("containerd"), Kubelet: inv.WantsDaemon("kubelet")},
			})
		})
		if err != nil || inv.Skips(PhaseRun) || inv.RegistrationTimeout == 0 {
			return err
		}
		return waitForJoin(ctx, inv, env, log)
	case CmdDoctor:
		return runDoctor(ctx, inv, env, log)
	case CmdBundle:
		return runBundle(ctx, inv, env, log)
	}
	return fmt.Errorf("%w: unhandled command %q", ErrUsage, inv.Command)
}

func check(ctx context.Context, inv Invocation, env Env, log *slog.Logger) error {
	var opts []agent.CheckOption
	var targetErr error
	if inv.UserData.Target != "" {
		opts = append(opts, agent.WithChecker(func(docs []userdata.Document) diag.List {
			ps, err := targetProblems(inv, docs, env.Stderr)
			targetErr = err
			return ps
		}), agent.Supplied(suppliedByTarget(inv.UserData.Target)...))
	}
	rep, err := newAgent(inv, env, log).Check(ctx, inv.Sources, opts...)
	if err != nil {
		return err
	}
	if targetErr != nil {
		return targetErr
	}
	if inv.Output == "json" {
		if err := writeJSON(env.Stdout, rep); err != nil {
			return err
		}
	} else if err := rep.WriteText(env.Stdout); err != nil {
		return err
	}
	if !rep.Valid {
		return errInvalid
	}
	return nil
}

func dump(ctx context.Context, inv Invocation, env Env, log *slog.Logger) error {
	res, err := newAgent(inv, env, log).Resolve(ctx, inv.Sources, inv.Cache)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if inv.Output == "json" {
		err = writeJSON(&b, res.Config)
	} else {
		writeSourcesComment(&b, res.Input.DocumentInfos(), res.FromCache)
		var y []byte
		y, err = yaml.Marshal(res.Config)
		b.Write(y)
	}
	if err != nil {
		return err
	}
	if inv.OutputPath != "" {
		return os.WriteFile(inv.OutputPath, b.Bytes(), 0o600)
	}
	_, err = env.Stdout.Write(b.Bytes())
	return err
}

// writeSourcesComment heads YAML dumps with what each document was read as.
func writeSourcesComment(w io.Writer, docs []diag.DocumentInfo, fromCache bool) {
	for _, d := range docs {
		state := "applied"
		if !d.Applied {
			state = "not applied"
		}
		fmt.Fprintf(w, "# %s: %s (%s)\n", d.Source.String(), d.Source.Format, state)
	}
	if fromCache {
		fmt.Fprintln(w, "# status from the config cache (spec unchanged)")
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
