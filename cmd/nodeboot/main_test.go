package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
	"github.com/nodeboot/nodeboot/internal/testing/gobuild"
	"github.com/nodeboot/nodeboot/internal/testing/nodetest"
)

// binary is the nodeboot executable built once for the process tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "nodeboot-bin-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "nodeboot")
	if err := gobuild.Build(context.Background(), ".", binary, ".", "celexec"); err != nil {
		panic(err)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// fakeMachine writes the host files an AL2023 AMI has under root.
func fakeMachine(t testing.TB, root string) { nodetest.FakeMachine(t, root) }

type result struct {
	code           int
	stdout, stderr string
}

func run(t testing.TB, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
}

func mustRead(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInitAgainstRealIMDS drives the built binary against AWS's
// amazon-ec2-metadata-mock (IMDSv2 only) and the local EC2 API server.
func TestInitAgainstRealIMDS(t *testing.T) {
	awstest.IsolateEnv(t)
	userData, err := os.ReadFile("../../internal/node/agent/testdata/cases/mime-two-parts-and-shell/user-data")
	if err != nil {
		t.Fatal(err)
	}
	imdsURL := aemmtest.Start(t, aemmtest.Config{UserData: userData})
	ec2 := awstest.NewEC2(t)
	ec2.AddInstance(awstest.Instance{ID: aemmtest.DefaultInstanceID, InstanceType: "m5.large", PrivateDNSName: "ip-10-0-0-5.us-west-2.compute.internal"})
	root := t.TempDir()
	fakeMachine(t, root)
	env := []string{"AWS_EC2_METADATA_SERVICE_ENDPOINT=" + imdsURL, "AWS_ENDPOINT_URL_EC2=" + ec2.URL}

	res := run(t, env, "init", "--skip", "run", "--root", root)
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	args := mustRead(t, filepath.Join(root, "etc/eks/kubelet/environment"))
	for _, want := range []string{"--node-ip=10.0.0.5", "--hostname-override=ip-10-0-0-5.us-west-2.compute.internal",
		"--node-labels=team=payments", "--register-with-taints=dedicated=payments:NoSchedule"} {
		if !strings.Contains(args, want) {
			t.Errorf("kubelet args lack %s:\n%s", want, args)
		}
	}
	cfg := mustRead(t, filepath.Join(root, "etc/kubernetes/kubelet/config.json"))
	for _, want := range []string{`"providerID": "aws:///us-west-2a/i-0123456789abcdef0"`, `"maxPods": 58`, `"memory": "893Mi"`} {
		if !strings.Contains(cfg, want) {
			t.Errorf("kubelet config lacks %s", want)
		}
	}
	dropIn := mustRead(t, filepath.Join(root, "etc/kubernetes/kubelet/config.json.d/40-nodeadm.conf"))
	if !strings.Contains(dropIn, "10.100.0.53") {
		t.Errorf("drop-in lacks the second part's clusterDNS:\n%s", dropIn)
	}
	if got := ec2.Calls(awstest.ActionDescribeInstances); got != 1 {
		t.Errorf("DescribeInstances called %d times, want 1", got)
	}
	if got := ec2.Calls(awstest.ActionDescribeInstanceTypes); got != 0 {
		t.Errorf("DescribeInstanceTypes called %d times for a type in the table", got)
	}

	check := run(t, env, "config", "check")
	if check.code != 0 || !strings.Contains(check.stdout, "part 2 (text/x-shellscript): shell (not applied)") {
		t.Fatalf("config check: exit %d\n%s%s", check.code, check.stdout, check.stderr)
	}
}

func TestUsageExitCode(t *testing.T) {
	for _, args := range [][]string{{}, {"bogus"}, {"init", "--skip", "everything"}, {"config", "check", "-o", "xml"}} {
		if res := run(t, nil, args...); res.code != 2 {
			t.Errorf("%v: exit %d, want 2", args, res.code)
		}
	}
	if res := run(t, nil, "version"); res.code != 0 || !strings.HasPrefix(res.stdout, "nodeboot ") {
		t.Errorf("version: %+v", res)
	}
}

// TestMalformedInputsWriteNothing runs init on every malformed input of the
// decoder and MIME corpora: each must exit 1, name the field or MIME part,
// and leave the root exactly as it was.
func TestMalformedInputsWriteNothing(t *testing.T) {
	awstest.IsolateEnv(t)
	// A real IMDS and EC2 API, so that a valid config does get written:
	// what keeps the roots empty below is validation, not a failed lookup.
	imdsURL := aemmtest.Start(t, aemmtest.Config{})
	ec2 := awstest.NewEC2(t)
	ec2.AddInstance(awstest.Instance{ID: aemmtest.DefaultInstanceID, InstanceType: "m5.large", PrivateDNSName: "ip-10-0-0-5.us-west-2.compute.internal"})
	env := []string{"AWS_EC2_METADATA_SERVICE_ENDPOINT=" + imdsURL, "AWS_ENDPOINT_URL_EC2=" + ec2.URL}
	t.Run("control: a valid config is written", func(t *testing.T) {
		root := t.TempDir()
		fakeMachine(t, root)
		data, err := os.ReadFile("../../internal/node/agent/testdata/cases/minimal/user-data")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "user-data"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if res := run(t, env, "init", "--skip", "run", "--root", root, "-c", "file:///user-data"); res.code != 0 {
			t.Fatalf("exit %d\n%s", res.code, res.stderr)
		}
		if _, err := os.Stat(filepath.Join(root, "etc/kubernetes/kubelet/config.json")); err != nil {
			t.Fatal(err)
		}
	})
	var inputs []string
	for _, pattern := range []string{
		"../../internal/config/decode/testdata/malformed/*.yaml",
		"../../internal/config/userdata/testdata/malformed/*.txt",
		"../../internal/config/legacy/bootstrapsh/testdata/malformed/*.sh",
		"../../internal/config/legacy/bootstrapsh/testdata/malformed/*.sh.gz",
		"../../internal/config/legacy/bottlerocket/testdata/malformed/*.toml",
	} {
		m, _ := filepath.Glob(pattern)
		inputs = append(inputs, m...)
	}
	if len(inputs) < 30 {
		t.Fatalf("only %d malformed inputs found", len(inputs))
	}
	var failed atomic.Int32
	defer func() {
		n := failed.Load()
		if n < 30 {
			t.Errorf("only %d inputs were rejected, want at least 30", n)
		}
		t.Logf("%d of %d malformed inputs rejected with exit 1 and nothing written; the rest are warnings only", n, len(inputs))
	}()
	for _, in := range inputs {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(in))))+"/"+filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			root := t.TempDir()
			fakeMachine(t, root)
			src := filepath.Join(root, "user-data")
			if err := os.WriteFile(src, data, 0o644); err != nil {
				t.Fatal(err)
			}
			before := treeExcept(t, root, "")
			check := run(t, nil, "config", "check", "--root", root, "-c", "file:///user-data")
			if check.code == 0 {
				if !strings.Contains(check.stdout, "warning: file:///user-data") {
					t.Fatalf("corpus entry passes config check without a warning:\n%s", check.stdout)
				}
				return // an oddity that is only a warning; the config itself is fine
			}
			res := run(t, env, "init", "--skip", "run", "--root", root, "-c", "file:///user-data")
			if nodetest.OnlyNodeadmAccepted(check.stdout) { // nodeadm boots it: init must too, warning
				if res.code != 0 || !strings.Contains(res.stderr, "config check and init --strict refuse it") {
					t.Fatalf("config check refuses only what nodeadm accepts, but init: exit %d\n%s", res.code, res.stderr)
				}
				return
			}
			failed.Add(1)
			if res.code != 1 {
				t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
			}
			if !strings.Contains(res.stderr, "file:///user-data") {
				t.Errorf("message does not name the source:\n%s", res.stderr)
			}
			// Nothing but the note for the bootstrap.sh shim, saying why.
			if note, err := os.ReadFile(filepath.Join(root, "run/nodeboot/config-rejected")); err != nil || !strings.Contains(string(note), "file:///user-data") {
				t.Errorf("rejection note = %q, %v; want one naming the source", note, err)
			}
			after := slices.DeleteFunc(treeExcept(t, root, ""), func(p string) bool { return p == "run" || strings.HasPrefix(p, "run/nodeboot") })
			if strings.Join(after, " ") != strings.Join(before, " ") {
				t.Fatalf("files written for bad input:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

func treeExcept(t *testing.T, root, keep string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel != keep {
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// BenchmarkInitProcess times the whole `nodeboot init --skip run` process
// against a local IMDS: exec, IMDS round trips, DescribeInstances, render, write.
func BenchmarkInitProcess(b *testing.B) {
	awstest.IsolateEnv(b)
	userData, err := os.ReadFile("../../internal/node/agent/testdata/cases/mime-two-parts-and-shell/user-data")
	if err != nil {
		b.Fatal(err)
	}
	imdsURL := aemmtest.Start(b, aemmtest.Config{UserData: userData})
	ec2 := awstest.NewEC2(b)
	ec2.AddInstance(awstest.Instance{ID: aemmtest.DefaultInstanceID, InstanceType: "m5.large", PrivateDNSName: "ip-10-0-0-5.us-west-2.compute.internal"})
	env := []string{"AWS_EC2_METADATA_SERVICE_ENDPOINT=" + imdsURL, "AWS_ENDPOINT_URL_EC2=" + ec2.URL}
	var worst time.Duration
	for b.Loop() {
		b.StopTimer()
		root := b.TempDir()
		fakeMachine(b, root)
		b.StartTimer()
		start := time.Now()
		if res := run(b, env, "init", "--skip", "run", "--root", root); res.code != 0 {
			b.Fatalf("exit %d: %s", res.code, res.stderr)
		}
		worst = max(worst, time.Since(start))
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
}
