package localdisk

import (
	"context"
	"io"
	"log/slog"
	"path"
	"strings"
	"testing"
)

// simulated is an in-memory machine that applies each step's effect to its
// state the way the kernel and the tools would, so that Setup's rounds can
// be followed across a first boot and reboots. (The real commands run in
// the e2e suite.)
type simulated struct {
	st        State
	arrayDirs map[string]bool
	mountPath string
}

func (s *simulated) Probe(context.Context, Options) (State, error) {
	st := s.st
	st.Mounts = append([]MountPoint(nil), s.st.Mounts...)
	st.Disks = append([]Disk(nil), s.st.Disks...)
	if len(st.Disks) > 0 && st.Disks[0].Holder == "" {
		st.Array = nil // on the disks, but not assembled
	}
	if st.Array != nil && len(st.mountsOf(st.Array.Dev)) > 0 {
		st.ArrayDirs = s.arrayDirs
	}
	return st, nil
}

func (s *simulated) device(p string) (*Signature, string) {
	if s.st.Array != nil && (p == ArrayDevice || p == s.st.Array.Path) {
		return &s.st.Array.Sig, s.st.Array.Dev
	}
	for i := range s.st.Disks {
		if s.st.Disks[i].Path == p {
			return &s.st.Disks[i].Sig, s.st.Disks[i].Dev
		}
	}
	panic("no device " + p)
}

func (s *simulated) Execute(_ context.Context, step Step) error {
	arrayMount := path.Join(s.mountPath, "0")
	switch st := step.(type) {
	case CreateArray:
		for i := range s.st.Disks {
			s.st.Disks[i].Sig = Signature{Type: "linux_raid_member", Label: "host:" + ArrayName}
			s.st.Disks[i].Holder = "md127"
		}
		s.st.Array = &Array{Path: "/dev/md127", Dev: "9:127"}
	case AssembleArray:
		for i := range s.st.Disks {
			s.st.Disks[i].Holder = "md127"
		}
		s.st.Array.Path = "/dev/md127"
	case MakeXFS:
		sig, _ := s.device(st.Device)
		*sig = Signature{Type: "xfs", Label: st.Label}
	case MountXFS:
		_, dev := s.device(st.Device)
		s.st.Mounts = append(s.st.Mounts, MountPoint{Dev: dev, Root: "/", Target: st.Target})
	case MakeDir:
		if dir, ok := strings.CutPrefix(st.Path, arrayMount+"/"); ok {
			s.arrayDirs[dir] = true
		}
	case Bind:
		s.st.Mounts = append(s.st.Mounts, MountPoint{Dev: s.st.Array.Dev, Root: "/" + path.Base(st.From), Target: st.To})
	case CopyContents, StopUnit:
	default:
		panic("unknown step")
	}
	return nil
}

// reboot keeps what is on the disks and forgets mounts and assembly.
func (s *simulated) reboot() {
	s.st.Mounts = nil
	for i := range s.st.Disks {
		s.st.Disks[i].Holder = ""
	}
}

func setup(t *testing.T, opts Options, sys System) []string {
	t.Helper()
	res, err := Setup(context.Background(), opts, sys, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return res.Ran
}

func TestSetupRAIDAcrossReboots(t *testing.T) {
	opts := Options{Strategy: RAID0}
	sys := &simulated{mountPath: DefaultMountPath, arrayDirs: map[string]bool{},
		st: State{Disks: []Disk{blank("/dev/nvme1n1", "259:1"), blank("/dev/nvme2n1", "259:2")}}}
	if got := setup(t, opts, sys); strings.Join(got, "\n") != strings.Join(raidFirstBoot, "\n") {
		t.Fatalf("first boot ran:\n%s", strings.Join(got, "\n"))
	}
	if got := setup(t, opts, sys); len(got) != 0 {
		t.Fatalf("second run ran %q, want nothing", got)
	}
	sys.reboot()
	want := []string{
		"mdadm --assemble /dev/md/kubernetes /dev/nvme1n1 /dev/nvme2n1",
		"mkdir -p /mnt/k8s-disks/0",
		"mount -t xfs -o noatime /dev/md127 /mnt/k8s-disks/0",
		"systemctl stop kubelet.service",
		"systemctl stop containerd.service",
		"systemctl stop soci-snapshotter.service",
		"mkdir -p /var/lib/kubelet",
		"mount --bind /mnt/k8s-disks/0/kubelet /var/lib/kubelet",
		"mkdir -p /var/lib/containerd",
		"mount --bind /mnt/k8s-disks/0/containerd /var/lib/containerd",
		"mkdir -p /var/lib/soci-snapshotter-grpc",
		"mount --bind /mnt/k8s-disks/0/soci-snapshotter-grpc /var/lib/soci-snapshotter-grpc",
		"mkdir -p /var/log/pods",
		"mount --bind /mnt/k8s-disks/0/pods /var/log/pods",
	}
	if got := setup(t, opts, sys); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after a reboot ran:\n%s\nwant (no mkfs, no copy):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSetupMountIsIdempotent(t *testing.T) {
	opts := Options{Strategy: Mount}
	sys := &simulated{mountPath: DefaultMountPath, arrayDirs: map[string]bool{},
		st: State{Disks: []Disk{blank("/dev/nvme1n1", "259:1"), blank("/dev/nvme2n1", "259:2")}}}
	if got := setup(t, opts, sys); len(got) != 6 {
		t.Fatalf("first boot ran %q", got)
	}
	if got := setup(t, opts, sys); len(got) != 0 {
		t.Fatalf("second run ran %q, want nothing", got)
	}
	sys.reboot()
	for _, step := range setup(t, opts, sys) {
		if strings.HasPrefix(step, "mkfs") {
			t.Fatalf("a reboot formatted a disk: %s", step)
		}
	}
}

// stuck never takes effect, like a mount that silently fails.
type stuck struct{ simulated }

func (s *stuck) Execute(context.Context, Step) error { return nil }

func TestSetupStopsWhenStepsHaveNoEffect(t *testing.T) {
	sys := &stuck{simulated{st: State{Disks: []Disk{blank("/dev/nvme1n1", "259:1")}}}}
	_, err := Setup(context.Background(), Options{Strategy: Mount}, sys, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil || !strings.Contains(err.Error(), ErrNotConverged.Error()) {
		t.Fatalf("err = %v, want %v", err, ErrNotConverged)
	}
}
