package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFindRollout(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "nodeboot")
	notFound := func(string) (string, error) { return "", errors.New("not found") }
	onPath := func(name string) (string, error) { return "/usr/local/bin/" + name, nil }

	if got, err := findCompanion(RolloutBinary, self, onPath); err != nil || got != "/usr/local/bin/nodeboot-rollout" {
		t.Errorf("nothing next to nodeboot: %q, %v; want the PATH one", got, err)
	}
	if _, err := findCompanion(RolloutBinary, self, notFound); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "nodeboot-rollout, which is not installed next to "+self) {
		t.Errorf("missing everywhere: %v, want a usage error naming both places", err)
	}
	next := filepath.Join(dir, RolloutBinary)
	if err := os.WriteFile(next, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := findCompanion(RolloutBinary, self, onPath); got != "/usr/local/bin/nodeboot-rollout" {
		t.Errorf("a non-executable file next to nodeboot was taken: %q", got)
	}
	if err := os.Chmod(next, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := findCompanion(RolloutBinary, self, onPath); err != nil || got != next {
		t.Errorf("executable next to nodeboot: %q, %v; want %s (before PATH)", got, err, next)
	}
}

func TestRolloutIsHandedOver(t *testing.T) {
	inv, err := Parse([]string{"rollout", "status", "r1", "--watch", "-o", "json"})
	if err != nil || inv.Command != CmdRollout || !slices.Equal(inv.Args, []string{"status", "r1", "--watch", "-o", "json"}) {
		t.Fatalf("Parse = %+v, %v; want every argument after rollout kept as is", inv, err)
	}
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	bin := filepath.Join(dir, RolloutBinary)
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var gotPath string
	var gotArgv, gotEnv []string
	var out bytes.Buffer
	code := Main(context.Background(), []string{"rollout", "plan", "--group", "workers"}, Env{
		Stdout: &out, Stderr: &out,
		Environ: func() []string { return []string{"KUBECONFIG=/k"} },
		Exec: func(path string, argv, envv []string) error {
			gotPath, gotArgv, gotEnv = path, argv, envv
			return nil
		},
	})
	if code != ExitOK || gotPath != bin || !slices.Equal(gotArgv, []string{bin, "plan", "--group", "workers"}) || !slices.Equal(gotEnv, []string{"KUBECONFIG=/k"}) {
		t.Errorf("code %d exec(%q, %q, %q); out %s", code, gotPath, gotArgv, gotEnv, out.String())
	}

	t.Setenv("PATH", t.TempDir())
	out.Reset()
	code = Main(context.Background(), []string{"rollout", "plan"}, Env{Stdout: &out, Stderr: &out,
		Exec: func(string, []string, []string) error { t.Fatal("exec without a binary"); return nil }})
	if code != ExitUsage || !strings.Contains(out.String(), "nodeboot-rollout, which is not installed") {
		t.Errorf("missing binary: code %d, output %q; want 2 and a clear message", code, out.String())
	}
}

func TestAccessIsHandedOver(t *testing.T) {
	inv, err := Parse([]string{"access", "check", "--cluster", "prod", "--group", "workers", "-o", "json"})
	if err != nil || inv.Command != CmdAccess || !slices.Equal(inv.Args, []string{"check", "--cluster", "prod", "--group", "workers", "-o", "json"}) {
		t.Fatalf("Parse = %+v, %v; want every argument after access kept as is", inv, err)
	}
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	bin := filepath.Join(dir, AccessBinary)
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var gotArgv []string
	code := Main(context.Background(), []string{"access", "fix", "--dry-run"}, Env{Stdout: io.Discard, Stderr: io.Discard,
		Exec: func(_ string, argv, _ []string) error { gotArgv = argv; return nil }})
	if code != ExitOK || !slices.Equal(gotArgv, []string{bin, "fix", "--dry-run"}) {
		t.Errorf("code %d, exec %q", code, gotArgv)
	}
	var out bytes.Buffer
	t.Setenv("PATH", t.TempDir())
	code = Main(context.Background(), []string{"access", "check"}, Env{Stdout: &out, Stderr: &out,
		Exec: func(string, []string, []string) error { t.Fatal("exec without a binary"); return nil }})
	if code != ExitUsage || !strings.Contains(out.String(), "'nodeboot access' runs nodeboot-access, which is not installed") {
		t.Errorf("missing binary: code %d, output %q", code, out.String())
	}
}
