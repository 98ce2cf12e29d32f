package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/node/localdisk"
	"github.com/nodeboot/nodeboot/internal/node/netmanager"
)

// diskLog is an instance-store machine with one blank disk that records
// each step into the service recorder's call list, so that the order of
// disk steps and daemon restarts shows.
type diskLog struct {
	rec     *recorder
	sig     localdisk.Signature
	mounted bool
}

func (d *diskLog) Probe(context.Context, localdisk.Options) (localdisk.State, error) {
	st := localdisk.State{Disks: []localdisk.Disk{{Path: "/dev/nvme1n1", Dev: "259:1", Sig: d.sig}}}
	if d.mounted {
		st.Mounts = []localdisk.MountPoint{{Dev: "259:1", Root: "/", Target: "/mnt/k8s-disks/1"}}
	}
	return st, nil
}

func (d *diskLog) Execute(_ context.Context, s localdisk.Step) error {
	d.rec.r.Calls = append(d.rec.r.Calls, localdisk.Describe(s))
	switch s := s.(type) {
	case localdisk.MakeXFS:
		d.sig = localdisk.Signature{Type: "xfs", Label: s.Label}
	case localdisk.MountXFS:
		d.mounted = true
	}
	return nil
}

// withLocalStorageMount is the minimal case plus localStorage strategy Mount.
func withLocalStorageMount(t *testing.T) []byte {
	t.Helper()
	return append(readCase(t, "minimal"), "  instance:\n    localStorage:\n      strategy: Mount\n"...)
}

// TestRunPhaseSetsUpLocalDisksBeforeDaemons: instance.localStorage is
// applied in the run phase, before containerd and the kubelet start.
func TestRunPhaseSetsUpLocalDisksBeforeDaemons(t *testing.T) {
	a, _, _ := newTestAgent(t, t.TempDir(), withLocalStorageMount(t), loadCase(t, "testdata/cases/minimal"))
	rec := &recorder{}
	a.Services = rec.manager
	a.DiskSystem = &diskLog{rec: rec}
	o := initOpts()
	o.SkipRun = false
	if err := a.Init(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"mkfs.xfs -K -L nodeboot-1 -l su=8b /dev/nvme1n1",
		"mkdir -p /mnt/k8s-disks/1",
		"mount -t xfs -o noatime /dev/nvme1n1 /mnt/k8s-disks/1",
		"restart containerd.service",
		"restart kubelet.service",
	}
	if got := strings.Join(rec.r.Calls, "\n"); got != strings.Join(want, "\n") {
		t.Fatalf("calls:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// TestRunPhaseStopsOnForeignDiskData: a disk nodeboot did not format stops
// the run phase before any daemon starts, and nothing is run on it.
func TestRunPhaseStopsOnForeignDiskData(t *testing.T) {
	a, _, _ := newTestAgent(t, t.TempDir(), withLocalStorageMount(t), loadCase(t, "testdata/cases/minimal"))
	rec := &recorder{}
	a.Services = rec.manager
	a.DiskSystem = &diskLog{rec: rec, sig: localdisk.Signature{Type: "ext4"}}
	o := initOpts()
	o.SkipRun = false
	err := a.Init(context.Background(), o)
	if !errors.Is(err, localdisk.ErrForeignData) {
		t.Fatalf("err = %v, want ErrForeignData", err)
	}
	if len(rec.r.Calls) != 0 {
		t.Fatalf("calls after the refusal: %q", rec.r.Calls)
	}
}

// TestRunPhaseWithoutDaemonsNeedsNoServiceManager: init --daemon "" sets up
// the disks on a machine without systemd (as nodeadm's local-disks case).
func TestRunPhaseWithoutDaemonsNeedsNoServiceManager(t *testing.T) {
	a, _, _ := newTestAgent(t, t.TempDir(), withLocalStorageMount(t), loadCase(t, "testdata/cases/minimal"))
	rec := &recorder{}
	a.DiskSystem = &diskLog{rec: rec}
	o := initOpts()
	o.SkipRun, o.Scope = false, Scope{}
	if err := a.Init(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if len(rec.r.Calls) != 3 {
		t.Fatalf("calls = %q, want the three disk steps", rec.r.Calls)
	}
}

// TestRunPhaseWritesTheMarker: the run phase leaves the marker that makes
// udev-net-manager hand later interfaces to the VPC CNI; the config phase
// does not.
func TestRunPhaseWritesTheMarker(t *testing.T) {
	root := t.TempDir()
	a, _, _ := newTestAgent(t, root, readCase(t, "minimal"), loadCase(t, "testdata/cases/minimal"))
	marker := filepath.Join(root, netmanager.RunStartedMarker)
	if err := a.Init(context.Background(), initOpts()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the config phase wrote the marker: %v", err)
	}
	rec := &recorder{}
	a.Services = rec.manager
	o := initOpts()
	o.SkipConfig, o.SkipRun = true, false
	if err := a.Init(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("no marker after the run phase: %v", err)
	}
}
