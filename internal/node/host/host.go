package host

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nodeboot/nodeboot/internal/lazyregexp"
)

// Paths the probes read, as on the node.
const (
	KubeletVersionFile    = "/etc/eks/kubelet-version.txt"
	ContainerdVersionFile = "/etc/eks/containerd-version.txt"
	NvidiaRuntimePath     = "/usr/bin/nvidia-container-runtime"
	RuncPath              = "/usr/sbin/runc"
	CredentialProviderBin = "/etc/eks/image-credential-provider/ecr-credential-provider"
	pciDevicesDir         = "/sys/bus/pci/devices"
	cpuOnlineFile         = "/sys/devices/system/cpu/online"
	meminfoFile           = "/proc/meminfo"
)

// ErrNoVersion is returned when no version can be found in a file or output.
var ErrNoVersion = errors.New("no version found")

// Runner runs a command and returns its standard output.
type Runner interface {
	Output(ctx context.Context, name string, args ...string) ([]byte, error)
}

// Probe reads host facts under Root.
type Probe struct {
	Root string
	Run  Runner
	// Warn, when set, is told when a hardware fact (the online CPUs, the
	// memory size) is missing under Root and this machine's is used.
	Warn func(msg string, args ...any)
	// hostRoot is where this machine's own facts are read; "" means "/".
	hostRoot string
}

func (p Probe) path(nodePath string) string {
	if p.Root == "" {
		return nodePath
	}
	return filepath.Join(p.Root, nodePath)
}

// underOtherRoot reports whether Root is a directory other than /.
func (p Probe) underOtherRoot() bool {
	return p.Root != "" && filepath.Clean(p.Root) != "/"
}

// readFact reads a sysfs or procfs file under Root. A --root tree usually
// has no /sys or /proc of its own: then this machine's file is read
// instead, with a warning that names what was missing. Only when that
// fails too is the error returned, saying what to create.
func (p Probe) readFact(nodePath string) ([]byte, error) {
	b, err := os.ReadFile(p.path(nodePath))
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !p.underOtherRoot() {
		return b, err
	}
	hostPath := filepath.Join(cmp.Or(p.hostRoot, "/"), nodePath)
	b, hostErr := os.ReadFile(hostPath)
	if hostErr != nil {
		return nil, fmt.Errorf("%w (and this machine's %s: %w); create %s under --root %s",
			err, nodePath, hostErr, nodePath, p.Root)
	}
	if p.Warn != nil {
		p.Warn("a hardware fact is missing under --root; using this machine's value instead",
			"missing", p.path(nodePath), "using", hostPath)
	}
	return b, nil
}

var versionRE = lazyregexp.New(`v?(\d+\.\d+\.\d+)`)

// ParseVersion returns the first X.Y.Z in text, prefixed with "v".
func ParseVersion(text []byte) (string, error) {
	m := versionRE.FindSubmatch(text)
	if m == nil {
		return "", ErrNoVersion
	}
	return "v" + string(m[1]), nil
}

// KubeletVersion reads the version file, else runs `kubelet --version`.
func (p Probe) KubeletVersion(ctx context.Context) (string, error) {
	return p.version(ctx, KubeletVersionFile, "kubelet", "--version")
}

// ContainerdVersion reads the version file, else runs `containerd --version`.
func (p Probe) ContainerdVersion(ctx context.Context) (string, error) {
	return p.version(ctx, ContainerdVersionFile, "containerd", "--version")
}

func (p Probe) version(ctx context.Context, file, bin string, args ...string) (string, error) {
	b, err := os.ReadFile(p.path(file))
	if err == nil {
		v, perr := ParseVersion(b)
		if perr != nil {
			return "", fmt.Errorf("%s: %w", file, perr)
		}
		return v, nil
	}
	if !errors.Is(err, fs.ErrNotExist) || p.Run == nil {
		return "", fmt.Errorf("read %s: %w", file, err)
	}
	out, err := p.Run.Output(ctx, bin, args...)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", bin, strings.Join(args, " "), err)
	}
	v, err := ParseVersion(out)
	if err != nil {
		return "", fmt.Errorf("%s %s output: %w", bin, strings.Join(args, " "), err)
	}
	return v, nil
}

// CPUs counts online CPUs from /sys/devices/system/cpu/online ("0-3,8").
func (p Probe) CPUs() (int, error) {
	b, err := p.readFact(cpuOnlineFile)
	if err != nil {
		return 0, fmt.Errorf("count CPUs: %w", err)
	}
	return ParseCPUList(string(bytes.TrimSpace(b)))
}

// ParseCPUList counts the CPUs in a kernel CPU list such as "0-3,8,10-11".
func ParseCPUList(s string) (int, error) {
	if s == "" {
		return 0, fmt.Errorf("empty CPU list: %w", ErrBadCPUList)
	}
	n := 0
	for _, r := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return 0, fmt.Errorf("%q: %w", s, ErrBadCPUList)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return 0, fmt.Errorf("%q: %w", s, ErrBadCPUList)
			}
		}
		n += b - a + 1
	}
	return n, nil
}

// ErrBadCPUList is returned for an unparsable CPU list.
var ErrBadCPUList = errors.New("malformed CPU list")

// MemoryMiB reads MemTotal from /proc/meminfo.
func (p Probe) MemoryMiB() (int64, error) {
	b, err := p.readFact(meminfoFile)
	if err != nil {
		return 0, fmt.Errorf("read memory size: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("MemTotal %q: %w", fields[1], err)
			}
			return kb / 1024, nil
		}
	}
	return 0, fmt.Errorf("MemTotal not in %s", meminfoFile)
}

// NvidiaGPU reports whether any PCI device has vendor 0x10de.
func (p Probe) NvidiaGPU() bool {
	entries, err := os.ReadDir(p.path(pciDevicesDir))
	if err != nil {
		return false
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(p.path(pciDevicesDir), e.Name(), "vendor"))
		if err == nil && strings.TrimSpace(string(b)) == "0x10de" {
			return true
		}
	}
	return false
}

// Exists reports whether a regular file or symlink target exists at nodePath.
func (p Probe) Exists(nodePath string) bool {
	st, err := os.Stat(p.path(nodePath))
	return err == nil && !st.IsDir()
}
