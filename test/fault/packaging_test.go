package fault

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/testing/nodetest"
)

const shim = "../../packaging/rootfs/etc/eks/bootstrap.sh"

// bootstrapShRefuses rejects a node's user data in the config phase, then
// runs the packaged /etc/eks/bootstrap.sh shim the way cloud-init would,
// in a mount namespace whose /run is its own: the shim must refuse to start
// the node from its arguments alone and print the recorded reason; so must
// `nodeboot bootstrap-sh`.
func bootstrapShRefuses(t *testing.T, w *world) {
	nodetest.RequireRoot(t)
	countInput("rejected NodeConfig with a bootstrap.sh part")
	root := w.root(t, []byte("apiVersion: nodeboot.io/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: c\n    nmae: typo\n"))
	env := w.env(t, w.ec2(t).URL)
	run(t, env, 1, initArgs(root)...)
	note := filepath.Join(root, rejection)
	args := []string{"my-cluster", "--apiserver-endpoint", "https://example.gr7.us-west-2.eks.amazonaws.com", "--dns-cluster-ip", "10.100.0.10"}

	// In a private mount namespace: a fresh /run holding only the note.
	script := `set -e; mount -t tmpfs tmpfs /run; mkdir -p /run/nodeboot; cp "$NOTE" /run/nodeboot/config-rejected; exec bash "$SHIM" "$@"`
	cmd := exec.Command("unshare", append([]string{"--mount", "--propagation", "private", "sh", "-c", script, "sh"}, args...)...)
	cmd.Env = append(env, "NOTE="+note, "SHIM="+shim)
	out, err := cmd.CombinedOutput()
	o := outcome{stderr: string(out)}
	if exit, ok := err.(*exec.ExitError); ok {
		o.code = exit.ExitCode()
	}
	countRun(t.Name()+"/shim", o, true)
	if o.code != 1 {
		t.Fatalf("bootstrap.sh: exit %d (%v), want 1\n%s", o.code, err, out)
	}
	says(t, o, "rejected this node's user data at boot", "spec.cluster.nmae", "not configuring or starting the node")

	before := snapshot(t, root)
	delete(before, rejection)
	o = run(t, env, 1, append([]string{"bootstrap-sh", "--root", root, "--skip", "run", "--"}, args...)...)
	says(t, o, "rejected at boot", "spec.cluster.nmae")
	files(before).assert(t, "after nodeboot bootstrap-sh", root, true)
}

// TestPackagedUnitsOutlastTheDeadline: every packaged nodeboot unit has a
// TimeoutStartSec=, and one that runs `nodeboot init` passes --timeout and
// lets systemd wait longer than that, so nodeboot always says what it was
// waiting for before systemd kills it.
func TestPackagedUnitsOutlastTheDeadline(t *testing.T) {
	units := packagedUnits(t)
	startLimit := regexp.MustCompile(`(?m)^TimeoutStartSec=(\S+)$`)
	timeout := regexp.MustCompile(`(?m)^ExecStart=/usr/bin/nodeboot init .*--timeout (\S+)`)
	for _, unit := range units {
		t.Run(filepath.Base(unit), func(t *testing.T) {
			b, err := os.ReadFile(unit)
			if err != nil {
				t.Fatal(err)
			}
			limit, deadline := startLimit.FindSubmatch(b), timeout.FindSubmatch(b)
			runsInit := strings.Contains(string(b), "ExecStart=/usr/bin/nodeboot init")
			switch {
			case limit == nil:
				t.Fatalf("unit lacks TimeoutStartSec=:\n%s", b)
			case runsInit && deadline == nil:
				t.Fatalf("unit runs nodeboot init without --timeout:\n%s", b)
			case !runsInit:
				return
			}
			l, err1 := time.ParseDuration(strings.Replace(string(limit[1]), "min", "m", 1))
			d, err2 := time.ParseDuration(string(deadline[1]))
			if err1 != nil || err2 != nil || l <= d {
				t.Errorf("TimeoutStartSec=%s does not outlast --timeout %s (%v, %v)", limit[1], deadline[1], err1, err2)
			}
		})
	}
}

// TestPackagedUnitsRunOneSchedulerThread: every packaged nodeboot unit runs
// the agent with GOMAXPROCS=1, as hack/bench-vs-nodeadm.sh measures it
// (docs/performance.md).
func TestPackagedUnitsRunOneSchedulerThread(t *testing.T) {
	oneThread := regexp.MustCompile(`(?m)^Environment=GOMAXPROCS=1$`)
	for _, unit := range packagedUnits(t) {
		b, err := os.ReadFile(unit)
		if err != nil {
			t.Fatal(err)
		}
		if !oneThread.Match(b) {
			t.Errorf("%s: no Environment=GOMAXPROCS=1", filepath.Base(unit))
		}
	}
}

// packagedUnits returns the paths of the packaged nodeboot units.
func packagedUnits(t *testing.T) []string {
	t.Helper()
	units, err := filepath.Glob("../../packaging/rootfs/etc/systemd/system/nodeboot-*.service")
	if err != nil || len(units) < 2 {
		t.Fatalf("units: %v, %v", units, err)
	}
	return units
}
