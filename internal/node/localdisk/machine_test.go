package localdisk

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type argvLog struct{ calls []string }

func (r *argvLog) Output(_ context.Context, name string, args ...string) ([]byte, error) {
	r.calls = append(r.calls, strings.Join(append([]string{name}, args...), " "))
	return nil, nil
}

type runningUnits map[string]bool

func (u runningUnits) StopIfActive(_ context.Context, unit string) (bool, error) {
	was := u[unit]
	u[unit] = false
	return was, nil
}

// TestMachineExecute: commands run with their node paths under Root; units
// are stopped through the service manager, and those that ran are listed.
func TestMachineExecute(t *testing.T) {
	run := &argvLog{}
	m := &Machine{Root: "/scratch", Run: run, Units: runningUnits{"kubelet.service": true}}
	for _, s := range []Step{
		MakeXFS{Device: "/dev/loop5", Label: "nodeboot-1"},
		StopUnit{Unit: "kubelet.service"},
		StopUnit{Unit: "containerd.service"},
		Bind{From: "/mnt/k8s-disks/0/kubelet", To: "/var/lib/kubelet"},
	} {
		if err := m.Execute(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"mkfs.xfs -K -L nodeboot-1 -l su=8b /scratch/dev/loop5",
		"mount --bind /scratch/mnt/k8s-disks/0/kubelet /scratch/var/lib/kubelet",
	}
	if strings.Join(run.calls, "\n") != strings.Join(want, "\n") {
		t.Fatalf("ran:\n%s", strings.Join(run.calls, "\n"))
	}
	if got := m.Stopped(); len(got) != 1 || got[0] != "kubelet.service" {
		t.Fatalf("Stopped() = %q", got)
	}
}

// TestMachineMountsUnderRoot: the kernel's mount table is read as node
// paths; mounts outside Root are not the target's.
func TestMachineMountsUnderRoot(t *testing.T) {
	info := filepath.Join(t.TempDir(), "mountinfo")
	data := "22 1 254:1 / / rw - ext4 /dev/vda1 rw\n" +
		"40 22 7:5 / /scratch/mnt/k8s-disks/1 rw - xfs /scratch/dev/loop5 rw\n" +
		"41 22 7:6 / /scratchy/x rw - xfs /dev/loop6 rw\n"
	if err := os.WriteFile(info, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := (&Machine{Root: "/scratch/", MountInfo: info}).mounts()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != (MountPoint{Dev: "7:5", Root: "/", Target: "/mnt/k8s-disks/1"}) {
		t.Fatalf("mounts = %+v", got)
	}
}
