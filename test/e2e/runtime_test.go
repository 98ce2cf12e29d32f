//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/netmanager"
)

// Node paths the container runtime and kubelet own. The suite refuses to
// run when one of them already exists (this must be a throwaway machine)
// and removes them after every scenario.
var runtimeStateDirs = []string{
	"/var/lib/kubelet",
	"/var/lib/containerd",
	"/run/containerd",
	"/var/lib/cni",
	"/var/log/pods",
	"/var/log/containers",
	"/opt/containerd",
}

// toolScratchDirs are created on demand by host tools the kubelet runs
// (libmount's utab); they are removed after a scenario unless they existed.
var toolScratchDirs = []string{"/run/mount"}

// leakWatchDirs are listed before and after a scenario: a new entry in one
// of them after cleanup is reported as a leak.
var leakWatchDirs = []string{"/etc", "/var/lib", "/run", "/opt", "/var/log", "/etc/cni", "/etc/eks", "/etc/kubernetes"}

const (
	containerdSocket = "/run/containerd/containerd.sock"
	criNamespace     = "k8s.io"
	cniBridge        = "cni0"
)

// agentStateDirs are the agent's own persistent state (the discovery
// cache). Like runtimeStateDirs, the suite refuses to run when one exists
// (a stale cache would answer instead of EKS) and removes them after every
// scenario.
var agentStateDirs = []string{discoveryCacheDir, runStartedDir}

// runStartedDir holds the marker init's run phase leaves (nodeadm's
// /run/nodeadm/init), which udev-net-manager reads.
var runStartedDir = filepath.Dir(netmanager.RunStartedMarker)

// checkNoRuntimeState fails when the machine already has kubelet,
// containerd or nodeboot state.
func checkNoRuntimeState() error {
	var found []string
	for _, d := range append(slices.Clone(runtimeStateDirs), agentStateDirs...) {
		if _, err := os.Lstat(d); err == nil {
			found = append(found, d)
		}
	}
	if len(found) > 0 {
		return fmt.Errorf("this machine already has container runtime/kubelet/nodeboot state %v; the suite only runs on a machine where it owns them", found)
	}
	return nil
}

// runtimeBaseline is what existed before a scenario's runtime started.
type runtimeBaseline struct {
	scratch map[string]bool
	netns   map[string]bool
	cgroups map[string]bool
	bridge  bool
}

func takeRuntimeBaseline() runtimeBaseline {
	_, err := os.Stat("/sys/class/net/" + cniBridge)
	scratch := map[string]bool{}
	for _, d := range toolScratchDirs {
		if _, err := os.Lstat(d); err == nil {
			scratch[d] = true
		}
	}
	return runtimeBaseline{scratch: scratch, netns: listNetns(), cgroups: topLevelCgroups(), bridge: err == nil}
}

// ctr runs containerd's ctr against the node socket in the CRI namespace.
func ctr(ctx context.Context, args ...string) ([]byte, error) {
	full := append([]string{"--address", containerdSocket, "--namespace", criNamespace}, args...)
	out, err := exec.CommandContext(ctx, "ctr", full...).CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("ctr %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return out, nil
}

// importImages loads the locally built image tars into the CRI namespace.
func importImages(ctx context.Context, tars ...string) error {
	for _, tar := range tars {
		if _, err := ctr(ctx, "images", "import", tar); err != nil {
			return err
		}
	}
	return nil
}

// removeAllContainers kills and deletes every task and container the CRI
// namespace still has (what kubelet did not clean up), so that no
// containerd-shim or container process outlives the scenario.
func removeAllContainers(ctx context.Context) error {
	out, err := ctr(ctx, "tasks", "ls", "-q")
	if err != nil {
		return err
	}
	tasks := strings.Fields(string(out))
	for _, id := range tasks {
		_, _ = ctr(ctx, "tasks", "kill", "--signal", "SIGKILL", id)
	}
	var errs []error
	for _, id := range tasks {
		deadline := time.Now().Add(5 * time.Second)
		for {
			_, err := ctr(ctx, "tasks", "delete", "--force", id)
			if err == nil || time.Now().After(deadline) {
				if err != nil && !strings.Contains(err.Error(), "not found") {
					errs = append(errs, err)
				}
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	out, err = ctr(ctx, "containers", "ls", "-q")
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	for _, id := range strings.Fields(string(out)) {
		if _, err := ctr(ctx, "containers", "delete", id); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// cleanRuntimeState removes what containerd, runc, CNI and the kubelet left
// on the host after they were stopped: mounts, network namespaces, the CNI
// bridge, cgroups and state directories.
func cleanRuntimeState(base runtimeBaseline) error {
	var errs []error
	// Network namespaces first: their bind mounts live under /run/netns.
	for name := range listNetns() {
		if !base.netns[name] {
			if out, err := exec.Command("ip", "netns", "delete", name).CombinedOutput(); err != nil {
				errs = append(errs, fmt.Errorf("ip netns delete %s: %w: %s", name, err, out))
			}
		}
	}
	if len(base.netns) == 0 {
		removeEmptyDir("/run/netns")
	}
	if !base.bridge {
		if _, err := os.Stat("/sys/class/net/" + cniBridge); err == nil {
			if out, err := exec.Command("ip", "link", "delete", cniBridge).CombinedOutput(); err != nil {
				errs = append(errs, fmt.Errorf("ip link delete %s: %w: %s", cniBridge, err, out))
			}
		}
	}
	if err := unmountUnder(runtimeStateDirs); err != nil {
		errs = append(errs, err)
	}
	for _, d := range runtimeStateDirs {
		if err := os.RemoveAll(d); err != nil {
			errs = append(errs, err)
		}
	}
	for _, d := range toolScratchDirs {
		if !base.scratch[d] {
			if err := os.RemoveAll(d); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := removeNewCgroups(base.cgroups); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func removeEmptyDir(d string) { _ = os.Remove(d) }

func listNetns() map[string]bool {
	out := map[string]bool{}
	entries, _ := os.ReadDir("/run/netns")
	for _, e := range entries {
		out[e.Name()] = true
	}
	return out
}

// unmountUnder lazily unmounts every mount point below the given
// directories, deepest first (pod volumes, container rootfs, shm).
func unmountUnder(dirs []string) error {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	defer f.Close()
	var points []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		mp := unescapeMount(fields[4])
		for _, d := range dirs {
			if mp == d || strings.HasPrefix(mp, d+"/") {
				points = append(points, mp)
				break
			}
		}
	}
	slices.SortFunc(points, func(a, b string) int { return len(b) - len(a) })
	var errs []error
	for _, mp := range points {
		if err := syscall.Unmount(mp, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
			errs = append(errs, fmt.Errorf("unmount %s: %w", mp, err))
		}
	}
	return errors.Join(errs...)
}

// unescapeMount decodes the octal escapes of /proc/self/mountinfo.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v int
			if _, err := fmt.Sscanf(s[i+1:i+4], "%o", &v); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// cgroupMounts returns the mount points of every cgroup hierarchy.
func cgroupMounts() []string {
	entries, err := os.ReadDir("/sys/fs/cgroup")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join("/sys/fs/cgroup", e.Name()))
		}
	}
	if len(out) == 0 {
		out = []string{"/sys/fs/cgroup"}
	}
	return out
}

// topLevelCgroups lists the cgroup directories directly under each
// hierarchy root.
func topLevelCgroups() map[string]bool {
	seen := map[string]bool{}
	for _, h := range cgroupMounts() {
		entries, _ := os.ReadDir(h)
		for _, e := range entries {
			if e.IsDir() {
				seen[filepath.Join(h, e.Name())] = true
			}
		}
	}
	return seen
}

// removeNewCgroups removes (rmdir, deepest first) every top-level cgroup
// that was not in before: kubepods and anything containerd created.
func removeNewCgroups(before map[string]bool) error {
	var errs []error
	for cg := range topLevelCgroups() {
		if before[cg] {
			continue
		}
		var dirs []string
		_ = filepath.WalkDir(cg, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		slices.SortFunc(dirs, func(a, b string) int { return len(b) - len(a) })
		for _, d := range dirs {
			if err := rmdirRetry(d); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// rmdirRetry removes an empty cgroup, retrying while its last tasks exit.
func rmdirRetry(d string) error {
	var err error
	for range 20 {
		if err = syscall.Rmdir(d); err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("rmdir cgroup %s: %w", d, err)
}
