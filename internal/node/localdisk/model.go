package localdisk

import (
	"errors"
	"fmt"
	"strings"
)

// Strategies, as spec.instance.localStorage.strategy spells them.
const (
	RAID0  = "RAID0"
	RAID10 = "RAID10"
	Mount  = "Mount"
)

// Names of the mounts spec.instance.localStorage.disabledMounts may list.
const (
	DisabledContainerd = "Containerd"
	DisabledPodLogs    = "PodLogs"
	DisabledSOCI       = "SOCI"
)

// Defaults and names shared with nodeadm's setup-local-disks.
const (
	// DefaultMountPath is where file systems are mounted without mountPath.
	DefaultMountPath = "/mnt/k8s-disks"
	// ArrayDevice is the md array RAID strategies create.
	ArrayDevice = "/dev/md/kubernetes"
	// ArrayName is the array's md name (its members' label ends ":kubernetes").
	ArrayName = "kubernetes"
	// ByIDDir holds the udev links disks are found by.
	ByIDDir = "/dev/disk/by-id"
	// instanceStoreMarker is in the by-id name of every instance-store disk.
	instanceStoreMarker = "NVMe_Instance_Storage_"
	// labelPrefix starts the label of every file system nodeboot creates.
	labelPrefix = "nodeboot-"
	// minRAID10Disks is setup-local-disks' lower bound for RAID10.
	minRAID10Disks = 4
)

// ErrForeignData is returned when a disk holds something nodeboot did not
// write there; nothing is changed then.
var ErrForeignData = errors.New("instance-store disk holds data nodeboot did not write")

// ErrNotEnoughDisks is returned for RAID10 with fewer than four disks.
var ErrNotEnoughDisks = errors.New("not enough instance-store disks")

// ErrNotConverged is returned when Setup still has steps to run after
// several rounds (a step did not have the effect it should have).
var ErrNotConverged = errors.New("local disk setup did not converge")

// Options is spec.instance.localStorage.
type Options struct {
	Strategy       string
	MountPath      string
	DisabledMounts []string
}

func (o Options) mountPath() string {
	if o.MountPath == "" {
		return DefaultMountPath
	}
	return strings.TrimRight(o.MountPath, "/")
}

// Signature is what blkid finds on a block device; the zero value means
// blank.
type Signature struct {
	// Type is the file system or container type (xfs, ext4,
	// linux_raid_member, …).
	Type string
	// Label is the file system label, or "<homehost>:<name>" for md members.
	Label string
	// PartitionTable is the partition table type (gpt, dos), if any.
	PartitionTable string
}

// Blank reports whether nothing was found on the device.
func (s Signature) Blank() bool { return s == Signature{} }

// String describes the signature for messages.
func (s Signature) String() string {
	switch {
	case s.Blank():
		return "nothing"
	case s.PartitionTable != "":
		return "a " + s.PartitionTable + " partition table"
	case s.Label != "":
		return fmt.Sprintf("%s (label %q)", s.Type, s.Label)
	default:
		return s.Type + " (no label)"
	}
}

// ours reports an XFS file system nodeboot created for mount index n.
func (s Signature) ours(n int) bool {
	return s.Type == "xfs" && s.Label == label(n)
}

// arrayMember reports an md member of the array named ArrayName.
func (s Signature) arrayMember() bool {
	return s.Type == "linux_raid_member" && (s.Label == ArrayName || strings.HasSuffix(s.Label, ":"+ArrayName))
}

// label is the XFS label of the file system mounted at <mountPath>/n
// (at most 12 characters, XFS's limit).
func label(n int) string { return fmt.Sprintf("%s%d", labelPrefix, n) }

// labelIndex returns n for an XFS file system labelled nodeboot-<n>.
func (s Signature) labelIndex() (int, bool) {
	if s.Type != "xfs" || !strings.HasPrefix(s.Label, labelPrefix) {
		return 0, false
	}
	var n int
	if _, err := fmt.Sscanf(s.Label, labelPrefix+"%d", &n); err != nil || label(n) != s.Label || n < 1 {
		return 0, false
	}
	return n, true
}

// Disk is one instance-store disk.
type Disk struct {
	// Path is the device node, e.g. /dev/nvme1n1.
	Path string
	// Dev is the device number "major:minor", as /proc/self/mountinfo has it.
	Dev string
	Sig Signature
	// Holder is the md device using the disk (from sysfs holders), e.g.
	// "md127", or "".
	Holder string
}

// Array is an assembled md array that holds the disks.
type Array struct {
	// Path is its device node, e.g. /dev/md127.
	Path string
	Dev  string
	Sig  Signature
}

// MountPoint is one line of /proc/self/mountinfo that matters here.
type MountPoint struct {
	// Dev is the mounted file system's device number "major:minor".
	Dev string
	// Root is the directory of that file system mounted here ("/" for a
	// whole file system, "/kubelet" for a bind mount of a subdirectory).
	Root string
	// Target is the mount point, as a node path.
	Target string
}

// State is everything Plan looks at.
type State struct {
	Disks []Disk
	// Array is set when the disks are members of one assembled array.
	Array  *Array
	Mounts []MountPoint
	// ArrayDirs are the directories that exist at the top of the array's
	// file system (kubelet, containerd, …), known only while it is mounted.
	ArrayDirs map[string]bool
}

// mountedAt returns the mount at target, if any (the last one wins, as in
// the kernel's view of the path).
func (s State) mountedAt(target string) (MountPoint, bool) {
	var found MountPoint
	ok := false
	for _, m := range s.Mounts {
		if m.Target == target {
			found, ok = m, true
		}
	}
	return found, ok
}

// mountsOf lists where the whole file system dev is mounted.
func (s State) mountsOf(dev string) []string {
	var out []string
	for _, m := range s.Mounts {
		if m.Dev == dev && m.Root == "/" {
			out = append(out, m.Target)
		}
	}
	return out
}
