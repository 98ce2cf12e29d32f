// Package isoroot gives each run of a node agent a node of its own: a
// directory on tmpfs laid out like an EC2 node's root file system, in which
// the agent runs chrooted. The host's /usr is seen read-only through a
// writable overlay (so a test can add /usr/bin/kubelet); /etc, /var, /run
// and /tmp start empty; /dev holds only the harmless devices; /sys holds a
// CPU topology, network interfaces and no PCI or block devices; /proc is a
// procfs with a fixed meminfo.
// An agent without a --root flag (nodeadm) writes there what it writes on
// a node, and nothing reaches the host.
//
// The mounts need root and a private mount namespace: call Main from the
// test package's TestMain. Roots are independent, so runs may go in
// parallel.
package isoroot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// envInNamespace marks the re-executed test binary.
const envInNamespace = "NODEBOOT_ISOROOT_PRIVATE_NS"

// Main runs the tests. As root, it first re-executes the test binary in a
// private mount namespace of its own (propagation private), so every mount
// a test makes stays out of the host and disappears with the process.
// Without root it runs them as they are; New then skips (or fails under
// NODEBOOT_REQUIRE_E2E). m is a *testing.M, or one wrapping it to clean up
// after the tests.
func Main(m interface{ Run() int }) {
	if os.Geteuid() != 0 {
		os.Exit(m.Run())
	}
	if os.Getenv(envInNamespace) == "" {
		os.Exit(reexec())
	}
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		fmt.Fprintf(os.Stderr, "isoroot: make / private: %v\n", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// reexec runs this binary again, with the same arguments, in a new mount
// namespace, and returns its exit code.
func reexec() int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "isoroot: %v\n", err)
		return 1
	}
	cmd := exec.Command(self, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), envInNamespace+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS, Pdeathsig: syscall.SIGKILL}
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode()
	}
	fmt.Fprintf(os.Stderr, "isoroot: re-exec in a private mount namespace: %v\n", err)
	return 1
}

// Options shape a root.
type Options struct {
	// CPUs is a directory laid out like /sys/devices/system/cpu of the
	// simulated instance (cpuN/topology/{core_id,physical_package_id});
	// its CPUs also appear under /sys/devices/system/node/node0 and in
	// /sys/devices/system/cpu/online. Empty means two CPUs.
	CPUs string
	// MemTotalKiB is /proc/meminfo's MemTotal; 0 means 16 GiB.
	MemTotalKiB int
	// Links are the network interfaces under /sys/class/net, name → MAC.
	Links map[string]string
}

// Root is one node's root directory.
type Root struct {
	// Dir is the root as the host sees it.
	Dir    string
	mounts []string
}

// RequireRoot skips t, or fails it under NODEBOOT_REQUIRE_E2E, unless the
// test runs as root in the private namespace Main sets up.
func RequireRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() == 0 && os.Getenv(envInNamespace) != "" {
		return
	}
	msg := "needs root and isoroot.Main in TestMain (private mount namespace)"
	if os.Getenv("NODEBOOT_REQUIRE_E2E") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// New makes a fresh root that is unmounted when the test ends.
func New(t testing.TB, o Options) *Root {
	t.Helper()
	RequireRoot(t)
	// A short base: dbus-daemon's socket path inside must stay under the
	// 108 bytes of a unix socket address.
	base, err := os.MkdirTemp("", "isoroot-")
	if err != nil {
		t.Fatalf("isoroot: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	r, err := create(base, o)
	if err != nil {
		if r != nil {
			r.Close()
		}
		t.Fatalf("isoroot: %v", err)
	}
	t.Cleanup(r.Close)
	return r
}

// create lays out a root under base: base is mounted as tmpfs, the root is
// base/root and the /usr overlay's layers are base/usr.
func create(base string, o Options) (*Root, error) {
	if err := syscall.Mount("tmpfs", base, "tmpfs", 0, "mode=0755,size=512m"); err != nil {
		return nil, fmt.Errorf("tmpfs on %s: %w", base, err)
	}
	r := &Root{Dir: filepath.Join(base, "root"), mounts: []string{base}}
	steps := []func() error{
		r.skeleton,
		func() error { return r.overlayUsr(filepath.Join(base, "usr")) },
		r.devices,
		func() error { return r.sysfs(o.CPUs) },
		func() error { return r.links(o.Links) },
		func() error { return r.proc(base, o.MemTotalKiB) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return r, err
		}
	}
	return r, nil
}

// Close unmounts everything the root mounted, innermost first.
func (r *Root) Close() {
	for i := len(r.mounts) - 1; i >= 0; i-- {
		syscall.Unmount(r.mounts[i], syscall.MNT_DETACH) // detach: a process may still hold a file
	}
	r.mounts = nil
}

// skeleton makes the directories and the few /etc files every node has.
func (r *Root) skeleton() error {
	for _, d := range []string{"etc", "var/lib", "var/log", "var/tmp", "run/systemd/system", "run/dbus", "tmp", "usr", "dev", "proc", "sys", "root", "opt"} {
		if err := os.MkdirAll(r.Path(d), 0o755); err != nil {
			return err
		}
	}
	if err := os.Chmod(r.Path("tmp"), 0o1777); err != nil {
		return err
	}
	for _, l := range []string{"bin", "sbin", "lib", "lib64", "lib32", "libx32"} {
		if target, err := os.Readlink("/" + l); err == nil { // merged /usr: the same link
			if err := os.Symlink(target, r.Path(l)); err != nil {
				return err
			}
		} else if _, err := os.Stat("/" + l); err == nil {
			return fmt.Errorf("/%s is not a link into /usr (merged /usr is required)", l)
		}
	}
	files := map[string]string{
		"etc/hosts":         "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n",
		"etc/nsswitch.conf": "passwd: files\ngroup: files\nhosts: files dns\n",
		"etc/resolv.conf":   "nameserver 127.0.0.1\noptions attempts:1 timeout:1\n",
		"etc/passwd":        "root:x:0:0:root:/root:/bin/sh\n",
		"etc/group":         "root:x:0:\n",
		"etc/os-release":    "NAME=\"Amazon Linux\"\nVERSION=\"2023\"\nID=\"amzn\"\nVERSION_ID=\"2023\"\n",
	}
	for p, data := range files {
		if err := r.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// overlayUsr shows the host's /usr read-only under a writable tmpfs layer.
func (r *Root) overlayUsr(layers string) error {
	upper, work := filepath.Join(layers, "upper"), filepath.Join(layers, "work")
	for _, d := range []string{upper, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	opts := "lowerdir=/usr,upperdir=" + upper + ",workdir=" + work
	return r.mount("overlay", r.Path("usr"), "overlay", 0, opts)
}

// devices binds the host's harmless character devices into a fresh /dev;
// no disk is visible.
func (r *Root) devices() error {
	if err := r.mount("tmpfs", r.Path("dev"), "tmpfs", syscall.MS_NOSUID, "mode=0755,size=1m"); err != nil {
		return err
	}
	for _, d := range []string{"null", "zero", "full", "random", "urandom", "tty"} {
		p := r.Path("dev", d)
		if err := os.WriteFile(p, nil, 0o666); err != nil {
			return err
		}
		if err := r.mount("/dev/"+d, p, "", syscall.MS_BIND, ""); err != nil {
			return err
		}
	}
	return os.Symlink("/proc/self/fd", r.Path("dev/fd"))
}

// sysfs writes the CPU topology, an empty PCI bus and no block devices.
func (r *Root) sysfs(cpus string) error {
	ids, err := cpuIDs(cpus)
	if err != nil {
		return err
	}
	for _, d := range []string{"sys/bus/pci/devices", "sys/block", "sys/class/net"} {
		if err := os.MkdirAll(r.Path(d), 0o755); err != nil {
			return err
		}
	}
	for _, id := range ids {
		core, pkg := "0", "0"
		if cpus != "" {
			core = readTrim(filepath.Join(cpus, "cpu"+id, "topology/core_id"), id)
			pkg = readTrim(filepath.Join(cpus, "cpu"+id, "topology/physical_package_id"), "0")
		} else {
			core = id
		}
		for _, dir := range []string{"sys/devices/system/cpu/cpu" + id, "sys/devices/system/node/node0/cpu" + id} {
			if err := r.WriteFile(dir+"/topology/core_id", core+"\n", 0o444); err != nil {
				return err
			}
			if err := r.WriteFile(dir+"/topology/physical_package_id", pkg+"\n", 0o444); err != nil {
				return err
			}
		}
	}
	return r.WriteFile("sys/devices/system/cpu/online", fmt.Sprintf("0-%d\n", len(ids)-1), 0o444)
}

// links writes /sys/class/net/NAME/address for each interface.
func (r *Root) links(links map[string]string) error {
	for name, mac := range links {
		if err := r.WriteFile("sys/class/net/"+name+"/address", mac+"\n", 0o444); err != nil {
			return err
		}
	}
	return nil
}

// cpuIDs lists the cpuN entries of dir (0 and 1 when dir is empty).
func cpuIDs(dir string) ([]string, error) {
	if dir == "" {
		return []string{"0", "1"}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		if id, ok := strings.CutPrefix(e.Name(), "cpu"); ok && e.IsDir() && id != "" && strings.Trim(id, "0123456789") == "" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s holds no cpuN directory", dir)
	}
	return ids, nil
}

func readTrim(p, fallback string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return fallback
	}
	return strings.TrimSpace(string(b))
}

// proc mounts a procfs (the agents read their own mount table) with a
// fixed meminfo bound over the real one: the memory an agent sizes
// reservations by must not depend on the machine the test runs on.
func (r *Root) proc(base string, kib int) error {
	if kib == 0 {
		kib = 16 << 20
	}
	meminfo := filepath.Join(base, "meminfo")
	data := fmt.Sprintf("MemTotal:       %d kB\nMemFree:        %d kB\nMemAvailable:   %d kB\n", kib, kib/2, kib/2)
	if err := os.WriteFile(meminfo, []byte(data), 0o444); err != nil {
		return err
	}
	if err := r.mount("proc", r.Path("proc"), "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return err
	}
	return r.mount(meminfo, r.Path("proc/meminfo"), "", syscall.MS_BIND, "")
}

func (r *Root) mount(src, dst, fstype string, flags uintptr, data string) error {
	if err := syscall.Mount(src, dst, fstype, flags, data); err != nil {
		return fmt.Errorf("mount %s on %s: %w", src, dst, err)
	}
	r.mounts = append(r.mounts, dst)
	return nil
}

// Path returns the host path of p, a path inside the root.
func (r *Root) Path(p ...string) string {
	return filepath.Join(append([]string{r.Dir}, p...)...)
}

// WriteFile writes p (inside the root), making its parent directories.
func (r *Root) WriteFile(p, data string, mode fs.FileMode) error {
	full := r.Path(p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(full, []byte(data), mode); err != nil {
		return err
	}
	return os.Chmod(full, mode)
}

// Install makes the host file src appear at p inside the root (a bind
// mount: nothing is copied).
func (r *Root) Install(src, p string) error {
	if err := r.WriteFile(p, "", 0o755); err != nil {
		return err
	}
	return r.mount(src, r.Path(p), "", syscall.MS_BIND, "")
}

// Command returns a command that runs name (a path inside the root) with
// the root as "/" and dir (inside the root) as its working directory. The
// environment is env alone.
func (r *Root) Command(ctx context.Context, env []string, dir, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: r.Dir, Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// The whole process group goes on cancellation: an agent's children too.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}
