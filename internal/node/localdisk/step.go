package localdisk

import (
	"strconv"
	"strings"
)

// Step is one action of a plan. Every step but StopUnit is a command; its
// arguments that are node paths go through path, so that the same step
// runs under --root.
type Step interface {
	// Command is the command line, with node paths mapped by path.
	Command(path func(string) string) []string
}

// Describe renders a step as it runs on the node (paths unmapped).
func Describe(s Step) string {
	return strings.Join(s.Command(func(p string) string { return p }), " ")
}

// CreateArray creates the md array from blank disks. Like
// setup-local-disks it does not wait for a RAID10 initial resync, which
// runs in the background while the array is already usable.
type CreateArray struct {
	Level int
	Disks []string
}

// Command implements Step.
func (s CreateArray) Command(path func(string) string) []string {
	argv := []string{"mdadm", "--create", path(ArrayDevice), "--run", "--force",
		"--level=" + strconv.Itoa(s.Level), "--name=" + ArrayName, "--raid-devices=" + strconv.Itoa(len(s.Disks))}
	for _, d := range s.Disks {
		argv = append(argv, path(d))
	}
	return argv
}

// AssembleArray starts the existing array from its members (after a reboot
// on a system that did not assemble it by itself).
type AssembleArray struct {
	Disks []string
}

// Command implements Step.
func (s AssembleArray) Command(path func(string) string) []string {
	argv := []string{"mdadm", "--assemble", path(ArrayDevice)}
	for _, d := range s.Disks {
		argv = append(argv, path(d))
	}
	return argv
}

// MakeXFS creates nodeboot's XFS file system on a blank device. -K skips
// the discard pass (instance-store disks are delivered trimmed); a log
// stripe unit of 8 blocks keeps mkfs.xfs from warning on md arrays. There
// is deliberately no -f: mkfs.xfs itself refuses a device that holds a
// file system.
type MakeXFS struct {
	Device string
	Label  string
}

// Command implements Step.
func (s MakeXFS) Command(path func(string) string) []string {
	return []string{"mkfs.xfs", "-K", "-L", s.Label, "-l", "su=8b", path(s.Device)}
}

// MakeDir creates a directory and its parents.
type MakeDir struct {
	Path string
}

// Command implements Step.
func (s MakeDir) Command(path func(string) string) []string {
	return []string{"mkdir", "-p", path(s.Path)}
}

// MountXFS mounts a file system.
type MountXFS struct {
	Device, Target string
}

// Command implements Step.
func (s MountXFS) Command(path func(string) string) []string {
	return []string{"mount", "-t", "xfs", "-o", "noatime", path(s.Device), path(s.Target)}
}

// CopyContents copies a directory's contents, keeping owners, modes, links
// and times, into a directory that exists.
type CopyContents struct {
	From, To string
}

// Command implements Step.
func (s CopyContents) Command(path func(string) string) []string {
	return []string{"cp", "-a", path(s.From) + "/.", path(s.To) + "/"}
}

// Bind bind-mounts a directory onto another.
type Bind struct {
	From, To string
}

// Command implements Step.
func (s Bind) Command(path func(string) string) []string {
	return []string{"mount", "--bind", path(s.From), path(s.To)}
}

// StopUnit stops a systemd unit if it is running (it is started again once
// the mounts are in place), so that it does not write into a directory
// while it is copied and covered.
type StopUnit struct {
	Unit string
}

// Command implements Step; the executor stops the unit through the service
// manager rather than running this.
func (s StopUnit) Command(func(string) string) []string {
	return []string{"systemctl", "stop", s.Unit}
}
