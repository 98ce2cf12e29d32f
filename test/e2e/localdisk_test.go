//go:build e2e

package e2e

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
	"github.com/nodeboot/nodeboot/internal/testing/rootfs"
)

// localDiskSize is each loop disk's (sparse) size: mkfs.xfs refuses file
// systems under 300 MB.
const localDiskSize = 320 << 20

// TestLocalDisksMount proves instance.localStorage strategy Mount for real:
// loop devices play instance-store NVMe disks (by-id links named like EC2's
// under a scratch --root), the real nodeboot formats and mounts them from
// its run phase (init --daemon "", as nodeadm's local-disks case), a second
// run and a "reboot" (unmounted, data on the disks) change nothing but the
// mounts, and a disk holding someone else's file system stops the setup
// with its data intact.
func TestLocalDisksMount(t *testing.T) {
	requireLocalDiskTools(t)
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := buildBinary(t, repo, t.TempDir(), "./cmd/nodeboot")
	root := t.TempDir()
	disks := []*loopDisk{newLoopDisk(t, root, "AWSE2E00000000000001"), newLoopDisk(t, root, "AWSE2E00000000000002")}
	t.Cleanup(func() { unmountUnderRoot(t, root) })

	ca, err := os.ReadFile(filepath.Join(repo, "internal/node/agent/testdata/ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	userData := fmt.Sprintf(`apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  cluster:
    name: local-disks
    apiServerEndpoint: https://example.gr7.us-west-2.eks.amazonaws.com
    certificateAuthority: %s
    cidr: 10.100.0.0/16
  instance:
    localStorage:
      strategy: Mount
  featureGates:
    InstanceIdNodeName: true
`, base64.StdEncoding.EncodeToString(ca))
	rootfs.WriteFile(t, root, "/etc/nodeboot-e2e/user-data.yaml", userData)
	rootfs.WriteFile(t, root, "/etc/eks/kubelet-version.txt", "v1.34.4\n")
	rootfs.WriteFile(t, root, "/etc/eks/containerd-version.txt", "1.7.27\n")
	imdsURL := aemmtest.Start(t, aemmtest.Config{})
	run := func(t *testing.T) (string, error) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), bin, "init", "--root", root, "--daemon", "",
			"--config-source", "file:///etc/nodeboot-e2e/user-data.yaml")
		cmd.Env = append(os.Environ(), "AWS_EC2_METADATA_SERVICE_ENDPOINT="+imdsURL)
		out, err := cmd.CombinedOutput()
		t.Logf("nodeboot init:\n%s", out)
		return string(out), err
	}

	t.Run("first boot formats and mounts every disk", func(t *testing.T) {
		out, err := run(t)
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range disks {
			n := i + 1
			if !strings.Contains(out, fmt.Sprintf("mkfs.xfs -K -L nodeboot-%d -l su=8b /dev/%s", n, d.name)) {
				t.Errorf("no mkfs.xfs of %s in the output", d.name)
			}
			d.checkMounted(t, root, n)
		}
		if !strings.Contains(out, "using this machine's value instead") {
			t.Error("no warning that /sys and /proc are missing under --root")
		}
	})
	marker := filepath.Join(root, "/mnt/k8s-disks/1/written-before")
	if err := os.WriteFile(marker, []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("second run changes nothing", func(t *testing.T) {
		out, err := run(t)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "local disks already set up") || strings.Contains(out, "mkfs.xfs") {
			t.Errorf("the second run was not a no-op")
		}
		for i, d := range disks {
			if got := d.mountCount(t, root, i+1); got != 1 {
				t.Errorf("%s is mounted %d times at its directory", d.name, got)
			}
		}
	})
	t.Run("after a reboot the disks are mounted again, not formatted", func(t *testing.T) {
		unmountUnderRoot(t, root)
		out, err := run(t)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "mkfs.xfs") {
			t.Error("a reboot formatted a disk")
		}
		for i, d := range disks {
			d.checkMounted(t, root, i+1)
		}
		if b, err := os.ReadFile(marker); err != nil || string(b) != "kept" {
			t.Errorf("data written before the reboot: %q, %v", b, err)
		}
	})
	t.Run("a disk with someone else's file system stops the setup untouched", func(t *testing.T) {
		foreign := newLoopDisk(t, root, "AWSE2E00000000000003")
		if out, err := exec.Command("mkfs.xfs", "-q", "-L", "theirs", "/dev/"+foreign.name).CombinedOutput(); err != nil {
			t.Fatalf("mkfs.xfs: %v: %s", err, out)
		}
		out, err := run(t)
		if err == nil {
			t.Fatal("init succeeded with a foreign disk")
		}
		if !strings.Contains(out, `/dev/`+foreign.name+` holds xfs (label "theirs")`) {
			t.Errorf("the error does not name the disk and what it holds")
		}
		if sig := foreign.blkid(t); !strings.Contains(sig, "LABEL=theirs") {
			t.Errorf("the foreign disk changed: %s", sig)
		}
		if foreign.mountCount(t, root, 3) != 0 {
			t.Error("the foreign disk was mounted")
		}
	})
}

// requireLocalDiskTools skips (or fails under NODEBOOT_REQUIRE_E2E) when the
// test cannot run: it needs root, loop devices and mkfs.xfs.
func requireLocalDiskTools(t *testing.T) {
	t.Helper()
	why := ""
	switch {
	case os.Geteuid() != 0:
		why = "needs root (loop devices, mkfs.xfs, mount)"
	case !commandExists("losetup"), !commandExists("blkid"):
		why = "needs losetup and blkid (util-linux)"
	case !commandExists("mkfs.xfs"):
		why = "needs mkfs.xfs: run test/e2e/scripts/install-deps.sh"
	}
	if why == "" {
		return
	}
	if os.Getenv(aemmtest.EnvRequireE2E) != "" {
		t.Fatalf("%s, and %s is set", why, aemmtest.EnvRequireE2E)
	}
	t.Skip(why)
}

func commandExists(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

// loopDisk is a sparse file behind a loop device, visible under root as
// an instance-store disk: its device node and a by-id link named like
// EC2's.
type loopDisk struct {
	name string // loop5
	dev  string // 7:5
}

func newLoopDisk(t *testing.T, root, serial string) *loopDisk {
	t.Helper()
	img := filepath.Join(t.TempDir(), serial+".img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, localDiskSize); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("losetup", "--find", "--show", img).CombinedOutput()
	if err != nil {
		t.Fatalf("losetup: %v: %s", err, out)
	}
	node := strings.TrimSpace(string(out))
	t.Cleanup(func() {
		if out, err := exec.Command("losetup", "--detach", node).CombinedOutput(); err != nil {
			t.Errorf("losetup --detach %s: %v: %s", node, err, out)
		}
	})
	var st unix.Stat_t
	if err := unix.Stat(node, &st); err != nil {
		t.Fatal(err)
	}
	d := &loopDisk{name: filepath.Base(node), dev: fmt.Sprintf("%d:%d", unix.Major(st.Rdev), unix.Minor(st.Rdev))}
	under := filepath.Join(root, "dev", d.name)
	if err := os.MkdirAll(filepath.Dir(under), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mknod(under, unix.S_IFBLK|0o600, int(st.Rdev)); err != nil {
		t.Fatalf("mknod %s: %v", under, err)
	}
	link := filepath.Join(root, "dev/disk/by-id", "nvme-Amazon_EC2_NVMe_Instance_Storage_"+serial)
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../"+d.name, link); err != nil {
		t.Fatal(err)
	}
	return d
}

func (d *loopDisk) blkid(t *testing.T) string {
	t.Helper()
	out, _ := exec.Command("blkid", "-p", "-o", "export", "/dev/"+d.name).CombinedOutput()
	return string(out)
}

// mountCount counts the mounts of d's whole file system at
// <root>/mnt/k8s-disks/<n>.
func (d *loopDisk) mountCount(t *testing.T, root string, n int) int {
	t.Helper()
	target := filepath.Join(root, "mnt/k8s-disks", fmt.Sprint(n))
	count := 0
	for _, f := range mountInfoLines(t) {
		if f[2] == d.dev && f[3] == "/" && f[4] == target {
			count++
		}
	}
	return count
}

// checkMounted checks that d holds nodeboot's XFS labelled for n and is
// mounted at <root>/mnt/k8s-disks/<n>.
func (d *loopDisk) checkMounted(t *testing.T, root string, n int) {
	t.Helper()
	if sig := d.blkid(t); !strings.Contains(sig, "TYPE=xfs") || !strings.Contains(sig, fmt.Sprintf("LABEL=nodeboot-%d\n", n)) {
		t.Errorf("%s holds %q, want XFS labelled nodeboot-%d", d.name, sig, n)
	}
	if d.mountCount(t, root, n) != 1 {
		t.Errorf("%s (%s) is not mounted at %s/mnt/k8s-disks/%d", d.name, d.dev, root, n)
	}
}

// mountInfoLines returns /proc/self/mountinfo split into fields.
func mountInfoLines(t *testing.T) [][]string {
	t.Helper()
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, line := range bytes.Split(data, []byte("\n")) {
		if f := strings.Fields(string(line)); len(f) > 4 {
			out = append(out, f)
		}
	}
	return out
}

// unmountUnderRoot unmounts everything mounted below root, deepest first.
func unmountUnderRoot(t *testing.T, root string) {
	t.Helper()
	var targets []string
	for _, f := range mountInfoLines(t) {
		if strings.HasPrefix(f[4], root+"/") {
			targets = append(targets, f[4])
		}
	}
	for i := len(targets) - 1; i >= 0; i-- {
		if err := unix.Unmount(targets[i], 0); err != nil {
			t.Errorf("unmount %s: %v", targets[i], err)
		}
	}
}
