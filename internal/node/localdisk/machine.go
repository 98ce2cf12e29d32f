package localdisk

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// Runner runs a command and returns its standard output (host.ExecRunner).
type Runner interface {
	Output(ctx context.Context, name string, args ...string) ([]byte, error)
}

// Units stops the daemon that writes a directory before the directory is
// copied and covered by a bind mount.
type Units interface {
	// StopIfActive stops unit when it runs and reports whether it did.
	StopIfActive(ctx context.Context, unit string) (bool, error)
}

// Machine is the real system: disks, blkid, sysfs and the mount table,
// with every node path under Root. Commands (blkid, mdadm, mkfs.xfs,
// mount, cp) run through Run.
type Machine struct {
	Root string
	Run  Runner
	// Units may be nil when there is no service manager (a --root other
	// than /): then no daemon is assumed to run.
	Units Units
	// MountInfo is the kernel's mount table; "" means /proc/self/mountinfo.
	// Mount points under Root count, as node paths.
	MountInfo string

	stopped []string
}

// Stopped lists the units Execute stopped because they were running; the
// caller starts them again once the mounts are in place.
func (m *Machine) Stopped() []string { return slices.Clone(m.stopped) }

// path maps a node path under Root.
func (m *Machine) path(nodePath string) string {
	if m.Root == "" {
		return nodePath
	}
	return filepath.Join(m.Root, nodePath)
}

// nodePath maps a real path back to a node path; ok is false outside Root.
func (m *Machine) nodePath(real string) (string, bool) {
	root := filepath.Clean(m.Root)
	if m.Root == "" || root == "/" {
		return real, true
	}
	if real == root {
		return "/", true
	}
	rest, ok := strings.CutPrefix(real, root+"/")
	return "/" + rest, ok
}

// Execute runs one step.
func (m *Machine) Execute(ctx context.Context, s Step) error {
	if stop, ok := s.(StopUnit); ok {
		if m.Units == nil {
			return nil
		}
		was, err := m.Units.StopIfActive(ctx, stop.Unit)
		if was {
			m.stopped = append(m.stopped, stop.Unit)
		}
		return err
	}
	argv := s.Command(m.path)
	_, err := m.Run.Output(ctx, argv[0], argv[1:]...)
	return commandError(err)
}

// commandError adds a failed command's standard error to its error.
func commandError(err error) error {
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(exit.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(exit.Stderr)))
	}
	return err
}

// Probe reads the disks, what they hold, the array that holds them, the
// mount table and, when the array's file system is mounted, its top-level
// directories.
func (m *Machine) Probe(ctx context.Context, opts Options) (State, error) {
	var st State
	paths, err := m.instanceStoreDisks()
	if err != nil {
		return st, err
	}
	for _, p := range paths {
		d := Disk{Path: p, Holder: m.holder(p)}
		if d.Dev, err = m.deviceNumber(p); err != nil {
			return st, err
		}
		if d.Sig, err = m.signature(ctx, p); err != nil {
			return st, err
		}
		st.Disks = append(st.Disks, d)
	}
	if st.Array, err = m.array(ctx, st.Disks); err != nil {
		return st, err
	}
	if st.Mounts, err = m.mounts(); err != nil {
		return st, err
	}
	if st.Array != nil {
		st.ArrayDirs, err = m.arrayDirs(st, path.Join(opts.mountPath(), "0"))
	}
	return st, err
}

// instanceStoreDisks resolves the by-id links of instance-store disks
// (whole disks only; "-part" links are partitions) to device nodes, sorted.
func (m *Machine) instanceStoreDisks() ([]string, error) {
	links, err := filepath.Glob(filepath.Join(m.path(ByIDDir), "*"+instanceStoreMarker+"*"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range links {
		if strings.Contains(filepath.Base(l), "-part") {
			continue
		}
		real, err := filepath.EvalSymlinks(l)
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", l, err)
		}
		p, ok := m.nodePath(real)
		if !ok {
			return nil, fmt.Errorf("%s points outside --root %s (to %s)", l, m.Root, real)
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out, nil
}

// deviceNumber is the block device's "major:minor".
func (m *Machine) deviceNumber(nodePath string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(m.path(nodePath), &st); err != nil {
		return "", fmt.Errorf("stat %s: %w", m.path(nodePath), err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFBLK {
		return "", fmt.Errorf("%s is not a block device", m.path(nodePath))
	}
	return fmt.Sprintf("%d:%d", unix.Major(st.Rdev), unix.Minor(st.Rdev)), nil
}

// signature asks blkid what the device holds, probing the device itself
// (-p) rather than blkid's cache. blkid exits 2 when it finds nothing.
func (m *Machine) signature(ctx context.Context, nodePath string) (Signature, error) {
	out, err := m.Run.Output(ctx, "blkid", "-p", "-o", "export", m.path(nodePath))
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 2 {
		return Signature{}, nil
	}
	if err != nil {
		return Signature{}, fmt.Errorf("blkid %s: %w", m.path(nodePath), commandError(err))
	}
	return ParseBlkid(out), nil
}

// holder is the md device holding a disk, from sysfs; "" if none (or no
// sysfs under Root).
func (m *Machine) holder(nodePath string) string {
	entries, err := os.ReadDir(m.path(path.Join("/sys/class/block", path.Base(nodePath), "holders")))
	if err != nil || len(entries) == 0 {
		return ""
	}
	return entries[0].Name()
}

// array returns the assembled array when every disk is held by the same
// md device.
func (m *Machine) array(ctx context.Context, disks []Disk) (*Array, error) {
	h := disks
	if len(h) == 0 || h[0].Holder == "" {
		return nil, nil
	}
	for _, d := range h {
		if d.Holder != h[0].Holder {
			return nil, nil
		}
	}
	a := &Array{Path: "/dev/" + h[0].Holder}
	dev, err := os.ReadFile(m.path(path.Join("/sys/class/block", h[0].Holder, "dev")))
	if err != nil {
		return nil, fmt.Errorf("device number of %s: %w", a.Path, err)
	}
	a.Dev = strings.TrimSpace(string(dev))
	if a.Sig, err = m.signature(ctx, a.Path); err != nil {
		return nil, err
	}
	return a, nil
}

// mounts reads the kernel's mount table, keeping mount points under Root
// as node paths.
func (m *Machine) mounts() ([]MountPoint, error) {
	file := m.MountInfo
	if file == "" {
		file = "/proc/self/mountinfo"
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	all, err := ParseMountInfo(data)
	if err != nil {
		return nil, err
	}
	var out []MountPoint
	for _, mp := range all {
		if p, ok := m.nodePath(mp.Target); ok {
			mp.Target = p
			out = append(out, mp)
		}
	}
	return out, nil
}

// arrayDirs lists the directories at the top of the array's file system
// when it is mounted at target (nil when it is not). They decide whether a
// state directory is copied, so an unreadable one is an error.
func (m *Machine) arrayDirs(st State, target string) (map[string]bool, error) {
	if !slices.Contains(st.mountsOf(st.Array.Dev), target) {
		return nil, nil
	}
	entries, err := os.ReadDir(m.path(target))
	if err != nil {
		return nil, fmt.Errorf("list the array's directories: %w", err)
	}
	dirs := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() {
			dirs[e.Name()] = true
		}
	}
	return dirs, nil
}
