package localdisk

import (
	"errors"
	"strings"
	"testing"
)

func blank(path, dev string) Disk { return Disk{Path: path, Dev: dev} }

func xfs(path, dev, label string) Disk {
	return Disk{Path: path, Dev: dev, Sig: Signature{Type: "xfs", Label: label}}
}

func member(path, dev, holder string) Disk {
	return Disk{Path: path, Dev: dev, Holder: holder, Sig: Signature{Type: "linux_raid_member", Label: "ip-10-0-0-5:kubernetes"}}
}

// ourArray is an assembled array holding nodeboot's file system.
var ourArray = &Array{Path: "/dev/md127", Dev: "9:127", Sig: Signature{Type: "xfs", Label: "nodeboot-0"}}

func mounted(dev, root, target string) MountPoint {
	return MountPoint{Dev: dev, Root: root, Target: target}
}

// allBound is a RAID node after the first boot: the array at
// /mnt/k8s-disks/0 and every state directory bind-mounted from it.
var allBound = []MountPoint{
	mounted("259:0", "/", "/"),
	mounted("9:127", "/", "/mnt/k8s-disks/0"),
	mounted("9:127", "/kubelet", "/var/lib/kubelet"),
	mounted("9:127", "/containerd", "/var/lib/containerd"),
	mounted("9:127", "/soci-snapshotter-grpc", "/var/lib/soci-snapshotter-grpc"),
	mounted("9:127", "/pods", "/var/log/pods"),
}

var raidFirstBoot = []string{
	"mdadm --create /dev/md/kubernetes --run --force --level=0 --name=kubernetes --raid-devices=2 /dev/nvme1n1 /dev/nvme2n1",
	"mkfs.xfs -K -L nodeboot-0 -l su=8b /dev/md/kubernetes",
	"mkdir -p /mnt/k8s-disks/0",
	"mount -t xfs -o noatime /dev/md/kubernetes /mnt/k8s-disks/0",
	"systemctl stop kubelet.service",
	"systemctl stop containerd.service",
	"systemctl stop soci-snapshotter.service",
	"mkdir -p /var/lib/kubelet",
	"mkdir -p /mnt/k8s-disks/0/kubelet",
	"cp -a /var/lib/kubelet/. /mnt/k8s-disks/0/kubelet/",
	"mount --bind /mnt/k8s-disks/0/kubelet /var/lib/kubelet",
	"mkdir -p /var/lib/containerd",
	"mkdir -p /mnt/k8s-disks/0/containerd",
	"cp -a /var/lib/containerd/. /mnt/k8s-disks/0/containerd/",
	"mount --bind /mnt/k8s-disks/0/containerd /var/lib/containerd",
	"mkdir -p /var/lib/soci-snapshotter-grpc",
	"mkdir -p /mnt/k8s-disks/0/soci-snapshotter-grpc",
	"cp -a /var/lib/soci-snapshotter-grpc/. /mnt/k8s-disks/0/soci-snapshotter-grpc/",
	"mount --bind /mnt/k8s-disks/0/soci-snapshotter-grpc /var/lib/soci-snapshotter-grpc",
	"mkdir -p /var/log/pods",
	"mkdir -p /mnt/k8s-disks/0/pods",
	"cp -a /var/log/pods/. /mnt/k8s-disks/0/pods/",
	"mount --bind /mnt/k8s-disks/0/pods /var/log/pods",
}

func TestMakePlan(t *testing.T) {
	rootOnly := []MountPoint{mounted("259:0", "/", "/")}
	tests := []struct {
		name      string
		opts      Options
		st        State
		want      []string
		wantNotes []string
		wantErr   error
		errHas    []string
	}{
		{name: "no strategy: nothing", opts: Options{}, st: State{Disks: []Disk{blank("/dev/nvme1n1", "259:1")}}},
		{name: "no disks: nothing, with a note", opts: Options{Strategy: RAID0},
			wantNotes: []string{"no instance-store NVMe disks (/dev/disk/by-id/*NVMe_Instance_Storage_*); nothing to set up"}},
		{name: "Mount, two blank disks", opts: Options{Strategy: Mount},
			st: State{Disks: []Disk{blank("/dev/nvme1n1", "259:1"), blank("/dev/nvme2n1", "259:2")}, Mounts: rootOnly},
			want: []string{
				"mkfs.xfs -K -L nodeboot-1 -l su=8b /dev/nvme1n1",
				"mkdir -p /mnt/k8s-disks/1",
				"mount -t xfs -o noatime /dev/nvme1n1 /mnt/k8s-disks/1",
				"mkfs.xfs -K -L nodeboot-2 -l su=8b /dev/nvme2n1",
				"mkdir -p /mnt/k8s-disks/2",
				"mount -t xfs -o noatime /dev/nvme2n1 /mnt/k8s-disks/2",
			}},
		{name: "Mount after a reboot that swapped device names: mounted by label, not formatted", opts: Options{Strategy: Mount},
			st: State{Disks: []Disk{xfs("/dev/nvme1n1", "259:1", "nodeboot-2"), xfs("/dev/nvme2n1", "259:2", "nodeboot-1")}},
			want: []string{
				"mkdir -p /mnt/k8s-disks/1",
				"mount -t xfs -o noatime /dev/nvme2n1 /mnt/k8s-disks/1",
				"mkdir -p /mnt/k8s-disks/2",
				"mount -t xfs -o noatime /dev/nvme1n1 /mnt/k8s-disks/2",
			}},
		{name: "Mount, everything in place: empty plan", opts: Options{Strategy: Mount},
			st: State{Disks: []Disk{xfs("/dev/nvme1n1", "259:1", "nodeboot-1")},
				Mounts: []MountPoint{mounted("259:1", "/", "/mnt/k8s-disks/1")}}},
		{name: "Mount, a new blank disk next to one of ours takes the next index", opts: Options{Strategy: Mount, MountPath: "/data/"},
			st: State{Disks: []Disk{blank("/dev/nvme1n1", "259:1"), xfs("/dev/nvme2n1", "259:2", "nodeboot-1")},
				Mounts: []MountPoint{mounted("259:2", "/", "/data/1")}},
			want: []string{
				"mkfs.xfs -K -L nodeboot-2 -l su=8b /dev/nvme1n1",
				"mkdir -p /data/2",
				"mount -t xfs -o noatime /dev/nvme1n1 /data/2",
			}},
		{name: "Mount, a disk of ours mounted elsewhere is left as it is", opts: Options{Strategy: Mount},
			st: State{Disks: []Disk{xfs("/dev/nvme1n1", "259:1", "nodeboot-1")},
				Mounts: []MountPoint{mounted("259:1", "/", "/srv")}},
			wantNotes: []string{"/dev/nvme1n1 is mounted at /srv; left as it is"}},
		{name: "Mount refuses a disk with another file system", opts: Options{Strategy: Mount},
			st:      State{Disks: []Disk{blank("/dev/nvme1n1", "259:1"), {Path: "/dev/nvme2n1", Dev: "259:2", Sig: Signature{Type: "ext4", Label: "data"}}}},
			wantErr: ErrForeignData, errHas: []string{`/dev/nvme2n1 holds ext4 (label "data")`, "wipefs -a"}},
		{name: "Mount refuses an XFS nodeboot did not label", opts: Options{Strategy: Mount},
			st:      State{Disks: []Disk{xfs("/dev/nvme1n1", "259:1", "")}},
			wantErr: ErrForeignData, errHas: []string{"/dev/nvme1n1 holds xfs (no label)"}},
		{name: "Mount refuses a partitioned disk", opts: Options{Strategy: Mount},
			st:      State{Disks: []Disk{{Path: "/dev/nvme1n1", Dev: "259:1", Sig: Signature{PartitionTable: "gpt"}}}},
			wantErr: ErrForeignData, errHas: []string{"/dev/nvme1n1 holds a gpt partition table"}},
		{name: "Mount refuses two disks with the same label", opts: Options{Strategy: Mount},
			st:      State{Disks: []Disk{xfs("/dev/nvme1n1", "259:1", "nodeboot-1"), xfs("/dev/nvme2n1", "259:2", "nodeboot-1")}},
			wantErr: ErrForeignData, errHas: []string{`/dev/nvme2n1 also carries label "nodeboot-1"`}},
		{name: "RAID0, first boot", opts: Options{Strategy: RAID0},
			st:   State{Disks: []Disk{blank("/dev/nvme1n1", "259:1"), blank("/dev/nvme2n1", "259:2")}, Mounts: rootOnly},
			want: raidFirstBoot},
		{name: "raid0 as nodeadm lowercases it is RAID0", opts: Options{Strategy: "raid0"},
			st:   State{Disks: []Disk{blank("/dev/nvme1n1", "259:1"), blank("/dev/nvme2n1", "259:2")}, Mounts: rootOnly},
			want: raidFirstBoot},
		{name: "RAID10 needs four disks", opts: Options{Strategy: RAID10},
			st:      State{Disks: []Disk{blank("/dev/nvme1n1", "259:1"), blank("/dev/nvme2n1", "259:2"), blank("/dev/nvme3n1", "259:3")}},
			wantErr: ErrNotEnoughDisks},
		{name: "RAID10, four blank disks, only kubelet bound", opts: Options{Strategy: RAID10, MountPath: "/mnt/nvme",
			DisabledMounts: []string{DisabledContainerd, DisabledPodLogs, DisabledSOCI}},
			st: State{Disks: []Disk{blank("/dev/nvme1n1", "259:1"), blank("/dev/nvme2n1", "259:2"), blank("/dev/nvme3n1", "259:3"), blank("/dev/nvme4n1", "259:4")}},
			want: []string{
				"mdadm --create /dev/md/kubernetes --run --force --level=10 --name=kubernetes --raid-devices=4 /dev/nvme1n1 /dev/nvme2n1 /dev/nvme3n1 /dev/nvme4n1",
				"mkfs.xfs -K -L nodeboot-0 -l su=8b /dev/md/kubernetes",
				"mkdir -p /mnt/nvme/0",
				"mount -t xfs -o noatime /dev/md/kubernetes /mnt/nvme/0",
				"systemctl stop kubelet.service",
				"mkdir -p /var/lib/kubelet",
				"mkdir -p /mnt/nvme/0/kubelet",
				"cp -a /var/lib/kubelet/. /mnt/nvme/0/kubelet/",
				"mount --bind /mnt/nvme/0/kubelet /var/lib/kubelet",
			}},
		{name: "RAID0 after a reboot, array not assembled: assemble only", opts: Options{Strategy: RAID0},
			st:   State{Disks: []Disk{member("/dev/nvme1n1", "259:1", ""), member("/dev/nvme2n1", "259:2", "")}},
			want: []string{"mdadm --assemble /dev/md/kubernetes /dev/nvme1n1 /dev/nvme2n1"}},
		{name: "RAID0 after a reboot, array assembled: mount it; binds wait until its directories are known", opts: Options{Strategy: RAID0},
			st: State{Disks: []Disk{member("/dev/nvme1n1", "259:1", "md127"), member("/dev/nvme2n1", "259:2", "md127")}, Array: ourArray, Mounts: rootOnly},
			want: []string{
				"mkdir -p /mnt/k8s-disks/0",
				"mount -t xfs -o noatime /dev/md127 /mnt/k8s-disks/0",
			}},
		{name: "RAID0 after a reboot, array mounted, directories on it: bind without copying", opts: Options{Strategy: RAID0, DisabledMounts: []string{DisabledSOCI}},
			st: State{Disks: []Disk{member("/dev/nvme1n1", "259:1", "md127"), member("/dev/nvme2n1", "259:2", "md127")}, Array: ourArray,
				Mounts:    []MountPoint{mounted("9:127", "/", "/mnt/k8s-disks/0")},
				ArrayDirs: map[string]bool{"kubelet": true, "containerd": true, "pods": true}},
			want: []string{
				"systemctl stop kubelet.service",
				"systemctl stop containerd.service",
				"mkdir -p /var/lib/kubelet",
				"mount --bind /mnt/k8s-disks/0/kubelet /var/lib/kubelet",
				"mkdir -p /var/lib/containerd",
				"mount --bind /mnt/k8s-disks/0/containerd /var/lib/containerd",
				"mkdir -p /var/log/pods",
				"mount --bind /mnt/k8s-disks/0/pods /var/log/pods",
			}},
		{name: "RAID0, everything in place: empty plan", opts: Options{Strategy: RAID0},
			st: State{Disks: []Disk{member("/dev/nvme1n1", "259:1", "md127"), member("/dev/nvme2n1", "259:2", "md127")}, Array: ourArray,
				Mounts: allBound, ArrayDirs: map[string]bool{"kubelet": true, "containerd": true, "soci-snapshotter-grpc": true, "pods": true}}},
		{name: "RAID0 leaves a separately mounted /var/lib/containerd alone", opts: Options{Strategy: RAID0, DisabledMounts: []string{DisabledSOCI, DisabledPodLogs}},
			st: State{Disks: []Disk{member("/dev/nvme1n1", "259:1", "md127")}, Array: ourArray,
				Mounts:    []MountPoint{mounted("9:127", "/", "/mnt/k8s-disks/0"), mounted("259:9", "/", "/var/lib/containerd")},
				ArrayDirs: map[string]bool{"kubelet": true}},
			want: []string{
				"systemctl stop kubelet.service",
				"mkdir -p /var/lib/kubelet",
				"mount --bind /mnt/k8s-disks/0/kubelet /var/lib/kubelet",
			},
			wantNotes: []string{"/var/lib/containerd is a mount point of another file system (device 259:9); it is not moved onto the array"}},
		{name: "RAID0, assembled array without a file system: format it and copy", opts: Options{Strategy: RAID0, DisabledMounts: []string{DisabledContainerd, DisabledSOCI, DisabledPodLogs}},
			st: State{Disks: []Disk{member("/dev/nvme1n1", "259:1", "md127")}, Array: &Array{Path: "/dev/md127", Dev: "9:127"}},
			want: []string{
				"mkfs.xfs -K -L nodeboot-0 -l su=8b /dev/md127",
				"mkdir -p /mnt/k8s-disks/0",
				"mount -t xfs -o noatime /dev/md127 /mnt/k8s-disks/0",
				"systemctl stop kubelet.service",
				"mkdir -p /var/lib/kubelet",
				"mkdir -p /mnt/k8s-disks/0/kubelet",
				"cp -a /var/lib/kubelet/. /mnt/k8s-disks/0/kubelet/",
				"mount --bind /mnt/k8s-disks/0/kubelet /var/lib/kubelet",
			}},
		{name: "RAID0 refuses an array with another file system", opts: Options{Strategy: RAID0},
			st:      State{Disks: []Disk{member("/dev/nvme1n1", "259:1", "md127")}, Array: &Array{Path: "/dev/md127", Dev: "9:127", Sig: Signature{Type: "ext4"}}},
			wantErr: ErrForeignData, errHas: []string{"the array /dev/md127 on /dev/nvme1n1 holds ext4 (no label)"}},
		{name: "RAID0 refuses a mix of blank and used disks", opts: Options{Strategy: RAID0},
			st:      State{Disks: []Disk{blank("/dev/nvme1n1", "259:1"), xfs("/dev/nvme2n1", "259:2", "nodeboot-1")}},
			wantErr: ErrForeignData, errHas: []string{"/dev/nvme1n1 is blank while other disks are not", `/dev/nvme2n1 holds xfs (label "nodeboot-1")`}},
		{name: "RAID0 refuses members of another array", opts: Options{Strategy: RAID0},
			st:      State{Disks: []Disk{{Path: "/dev/nvme1n1", Dev: "259:1", Sig: Signature{Type: "linux_raid_member", Label: "host:data"}}}},
			wantErr: ErrForeignData, errHas: []string{`/dev/nvme1n1 holds linux_raid_member (label "host:data")`}},
		{name: "unknown strategy", opts: Options{Strategy: "raid5"}, st: State{Disks: []Disk{blank("/dev/nvme1n1", "259:1")}},
			errHas: []string{`unknown local storage strategy "raid5"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := MakePlan(tc.opts, tc.st)
			if tc.wantErr != nil || tc.errHas != nil {
				if err == nil || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				for _, s := range tc.errHas {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not say %q", err, s)
					}
				}
				if len(p.Steps) != 0 {
					t.Errorf("steps planned despite the error: %q", describeAll(p.Steps))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := describeAll(p.Steps); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if strings.Join(p.Notes, "\n") != strings.Join(tc.wantNotes, "\n") {
				t.Errorf("notes = %q, want %q", p.Notes, tc.wantNotes)
			}
		})
	}
}

func describeAll(steps []Step) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = Describe(s)
	}
	return out
}

// TestStepsUnderRoot: every node path of a step is mapped, nothing else.
func TestStepsUnderRoot(t *testing.T) {
	under := func(p string) string { return "/scratch" + p }
	for _, tc := range []struct {
		step Step
		want string
	}{
		{CreateArray{Level: 0, Disks: []string{"/dev/loop5"}}, "mdadm --create /scratch/dev/md/kubernetes --run --force --level=0 --name=kubernetes --raid-devices=1 /scratch/dev/loop5"},
		{MakeXFS{Device: "/dev/loop5", Label: "nodeboot-1"}, "mkfs.xfs -K -L nodeboot-1 -l su=8b /scratch/dev/loop5"},
		{MountXFS{Device: "/dev/loop5", Target: "/mnt/k8s-disks/1"}, "mount -t xfs -o noatime /scratch/dev/loop5 /scratch/mnt/k8s-disks/1"},
		{CopyContents{From: "/var/lib/kubelet", To: "/mnt/k8s-disks/0/kubelet"}, "cp -a /scratch/var/lib/kubelet/. /scratch/mnt/k8s-disks/0/kubelet/"},
		{Bind{From: "/mnt/k8s-disks/0/pods", To: "/var/log/pods"}, "mount --bind /scratch/mnt/k8s-disks/0/pods /scratch/var/log/pods"},
	} {
		if got := strings.Join(tc.step.Command(under), " "); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
