package fault

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
	"github.com/nodeboot/nodeboot/internal/testing/nodetest"
)

// TestFaultSuite runs every fault; see the package documentation.
func TestFaultSuite(t *testing.T) {
	w := newWorld(t)
	t.Run("writes", func(t *testing.T) { writeFaults(t, w) })
	t.Run("time and size", func(t *testing.T) { timeFaults(t, w) })
}

// writeFaults break the installation of a new file set.
func writeFaults(t *testing.T, w *world) {
	t.Run("kill during the renames", func(t *testing.T) {
		countFault()
		root := w.rootWithA(t)
		env := w.env(t, w.ec2(t).URL)
		setSource(t, root, w.b)
		faultDir := t.TempDir()
		p := start(t, append(env, "NODEBOOT_FAULT_PAUSE_AFTER_STEP=2", "NODEBOOT_FAULT_DIR="+faultDir), initArgs(root)...)
		waitForFile(t, filepath.Join(faultDir, "paused"))
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		p.wait(t)
		// Killed between its second and third steps, the run left a mix;
		// the next run puts the previous set back before anything else,
		// even when it then rejects its own input.
		countInput("invalid user data")
		setSource(t, root, []byte("apiVersion: nodeboot.io/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    nmae: typo\n"))
		o := run(t, env, 1, initArgs(root)...)
		says(t, o, "put the previous ones back", "spec.cluster.nmae")
		w.setA.assert(t, "after a rejected rerun", root, true)
		setSource(t, root, w.b)
		run(t, env, 0, initArgs(root)...)
		w.setB.assert(t, "after a rerun with B", root, false)
	})

	t.Run("two runs at once", func(t *testing.T) {
		countFault()
		root := w.rootWithA(t)
		env := w.env(t, w.ec2(t).URL)
		// The first run installs B and stops after its first step.
		setSource(t, root, w.b)
		faultDir := t.TempDir()
		first := start(t, append(env, "NODEBOOT_FAULT_PAUSE_AFTER_STEP=1", "NODEBOOT_FAULT_DIR="+faultDir), initArgs(root)...)
		waitForFile(t, filepath.Join(faultDir, "paused"))
		// A second run, configured from A, must wait for the first.
		setSource(t, root, w.a)
		second := start(t, env, initArgs(root)...)
		second.waitFor(t, "waiting for it")
		if err := os.WriteFile(filepath.Join(faultDir, "resume"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, p := range []*proc{first, second} {
			if o := p.wait(t); o.code != 0 {
				t.Fatalf("exit %d\n%s", o.code, o.stderr)
			}
		}
		w.setA.assert(t, "after both runs", root, false)
	})

	t.Run("symlinked directory inside the root", func(t *testing.T) {
		countFault()
		root, host := w.root(t, w.a), t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, host), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(host, filepath.Join(root, "etc/kubernetes")); err != nil {
			t.Fatal(err)
		}
		run(t, w.env(t, w.ec2(t).URL), 0, initArgs(root)...)
		if entries, _ := os.ReadDir(host); len(entries) != 0 {
			t.Errorf("written on the host, through the link: %v", entries)
		}
		want := files{"etc/kubernetes": "-> " + host}
		for k, v := range w.setA {
			if rest, ok := strings.CutPrefix(k, "etc/kubernetes/"); ok {
				k = filepath.Join(strings.TrimPrefix(host, "/"), rest)
			}
			want[k] = v
		}
		want.assert(t, "after the run", root, false)
	})

	t.Run("directory where a file must go", func(t *testing.T) {
		countFault()
		root := w.root(t, w.a)
		if err := os.MkdirAll(filepath.Join(root, "etc/kubernetes/kubelet/config.json/x"), 0o755); err != nil {
			t.Fatal(err)
		}
		o := run(t, w.env(t, w.ec2(t).URL), 1, initArgs(root)...)
		says(t, o, "/etc/kubernetes/kubelet/config.json: is a directory")
		files{}.assert(t, "after the refused run", root, true)
	})

	for _, tc := range []struct {
		name   string
		target string // mounted over, relative to the root
	}{
		{name: "bind-mounted target", target: "etc/kubernetes/kubelet/config.json"},
		{name: "undeletable stale drop-in (bind-mounted)", target: "etc/kubernetes/kubelet/config.json.d/40-nodeadm.conf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			countFault()
			nodetest.RequireRoot(t)
			root := w.rootWithA(t)
			// The file mounted over the target holds what the target holds,
			// so the set before the run is A's, whole.
			src := filepath.Join(t.TempDir(), "mounted")
			if err := os.WriteFile(src, []byte(w.setA[tc.target]), 0o644); err != nil {
				t.Fatal(err)
			}
			nodetest.BindMount(t, src, filepath.Join(root, tc.target))
			setSource(t, root, w.b)
			o := run(t, w.env(t, w.ec2(t).URL), 1, initArgs(root)...)
			says(t, o, "/"+tc.target+": is a mount point")
			w.setA.assert(t, "after the refused run", root, true)
		})
	}

	t.Run("bootstrap.sh on a rejected node", func(t *testing.T) {
		countFault()
		bootstrapShRefuses(t, w)
	})
}

// timeFaults are dependencies that do not answer, or answer too much.
func timeFaults(t *testing.T, w *world) {
	// IMDS faults: only the run's --timeout ends these (each lookup alone
	// would take up to 2 minutes), and the message names the IMDS path.
	for _, tc := range []struct {
		name  string
		fault func(s *awstest.IMDS)
	}{
		{name: "IMDS sends headers, then trickles the body", fault: func(s *awstest.IMDS) { s.Trickle(awstest.PathUserData, time.Hour) }},
		{name: "IMDS accepts and never answers", fault: func(s *awstest.IMDS) { s.Hang(awstest.PathToken) }},
		{name: "IMDS token endpoint answers 5xx", fault: func(s *awstest.IMDS) {
			s.FailAlways(awstest.PathToken, awstest.Fault{Status: 503, Message: "Service Unavailable"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			countFault()
			root := w.rootWithA(t)
			imds := awstest.NewIMDS(t)
			imds.Set(awstest.PathUserData, string(w.b))
			tc.fault(imds)
			env := w.env(t, w.ec2(t).URL, "AWS_EC2_METADATA_SERVICE_ENDPOINT="+imds.URL)
			o := run(t, env, 1, "init", "--skip", "run", "--root", root, "-c", "imds://user-data", "--config-cache", cachePath, "--timeout", "10s")
			says(t, o, "init did not finish within --timeout 10s", "imds ")
			w.setA.assert(t, "after the run", root, true)
		})
	}

	// EKS and EC2: two attempts (AWS_MAX_ATTEMPTS) of the production
	// request deadline (10 s each) end the call, which names the action.
	t.Run("EKS DescribeCluster accepts and never answers", func(t *testing.T) {
		t.Parallel()
		countFault()
		root := w.rootWithA(t)
		eks := awstest.NewEKS(t)
		eks.Hang(awstest.ActionDescribeCluster)
		setSource(t, root, readCase(t, "discovery-cluster-name-only"))
		o := run(t, w.env(t, w.ec2(t).URL, "AWS_ENDPOINT_URL_EKS="+eks.URL, "AWS_MAX_ATTEMPTS=2"), 1, initArgs(root)...)
		says(t, o, `eks DescribeCluster "my-cluster": gave up after 2 attempts (the last timed out)`)
		w.setA.assert(t, "after the run", root, true)
	})
	t.Run("EC2 DescribeInstances accepts and never answers", func(t *testing.T) {
		t.Parallel()
		countFault()
		root := w.rootWithA(t)
		ec2 := w.ec2(t)
		ec2.Hang(awstest.ActionDescribeInstances)
		setSource(t, root, w.b)
		o := run(t, w.env(t, ec2.URL, "AWS_MAX_ATTEMPTS=2"), 1, initArgs(root)...)
		says(t, o, "ec2 DescribeInstances "+aemmtest.DefaultInstanceID+": gave up after 2 attempts (the last timed out)")
		w.setA.assert(t, "after the run", root, true)
	})
	t.Run("EC2 DescribeInstanceTypes accepts and never answers", func(t *testing.T) {
		t.Parallel()
		countFault()
		// An instance type nodeboot's table does not know: its limits come
		// from EC2, and when EC2 does not answer, max pods falls back to
		// the default, exactly as when EC2 refuses at once.
		w := *w
		w.imds = aemmtest.Start(t, aemmtest.Config{InstanceType: "m99.large"})
		refusing := w.ec2(t)
		refusing.FailAlways(awstest.ActionDescribeInstanceTypes, awstest.Fault{Status: 400, Code: "InvalidInstanceType", Message: "no such type"})
		reference := w.root(t, w.b)
		run(t, w.env(t, refusing.URL), 0, initArgs(reference)...)
		want := snapshot(t, reference)

		root := w.root(t, w.b)
		hanging := w.ec2(t)
		hanging.Hang(awstest.ActionDescribeInstanceTypes)
		o := run(t, w.env(t, hanging.URL, "AWS_MAX_ATTEMPTS=2"), 0, initArgs(root)...)
		says(t, o, "ec2:DescribeInstanceTypes failed; max pods falls back to the default", "gave up after 2 attempts (the last timed out)")
		want.assert(t, "after the run", root, false)
	})

	t.Run("named pipe as the source", func(t *testing.T) {
		t.Parallel()
		countFault()
		countInput("named pipe")
		root := w.rootWithA(t)
		if err := syscall.Mkfifo(filepath.Join(root, "src/fifo"), 0o644); err != nil {
			t.Fatal(err)
		}
		o := run(t, w.env(t, w.ec2(t).URL), 1, "init", "--skip", "run", "--root", root, "-c", "file:///src/fifo", "--config-cache", cachePath)
		says(t, o, "file:///src/fifo", "not a regular file (it is a named pipe)")
		w.setA.assert(t, "after the run", root, true)
	})
	t.Run("1 GiB source", func(t *testing.T) {
		t.Parallel()
		countFault()
		countInput("1 GiB sparse file")
		root := w.rootWithA(t)
		f, err := os.Create(filepath.Join(root, "src/huge.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(1 << 30); err != nil {
			t.Fatal(err)
		}
		f.Close()
		o := run(t, w.env(t, w.ec2(t).URL), 1, "init", "--skip", "run", "--root", root, "-c", "file:///src/huge.yaml", "--config-cache", cachePath)
		says(t, o, "file:///src/huge.yaml", "larger than 1 MiB")
		w.setA.assert(t, "after the run", root, true)
		// Refused on its size, not read: nowhere near the 1 GiB in memory.
		t.Logf("peak RSS of the run: %.1f MiB", float64(o.rssKiB)/1024)
		if o.rssKiB > 256<<10 {
			t.Errorf("peak RSS %d MiB: the file was read", o.rssKiB>>10)
		}
	})
}

// waitForFile waits until path exists (a bound only catches a hang).
func waitForFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(hangBound)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
