//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/netmanager"
	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
	"github.com/nodeboot/nodeboot/internal/testing/rootfs"
)

// Interfaces the network-helper test creates (veth pairs; this kernel has
// no dummy driver): the primary ENI, with the instance's primary MAC as
// AEMM serves it, and an ENI attached later.
const (
	primaryLink = "nbe2e0"
	lateLink    = "nbe2e1"
	lateLinkMAC = "0e:49:61:0f:c3:99"
)

// TestNetworkHelpers runs `nodeboot internal udev-net-manager` and
// `nodeboot internal boot-hook` the way nodeadm's udev-net-manager and
// boot-hook cases run nodeadm-internal: real interfaces (sysfs), IMDS from
// the real AEMM, files under a scratch --root, and a networkctl stand-in
// whose link states the test drives (the real one needs systemd-networkd).
func TestNetworkHelpers(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv(aemmtest.EnvRequireE2E) != "" {
			t.Fatalf("needs root (creates network interfaces), and %s is set", aemmtest.EnvRequireE2E)
		}
		t.Skip("needs root (creates network interfaces)")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := buildBinary(t, repo, t.TempDir(), "./cmd/nodeboot")
	addLink(t, primaryLink, aemmtest.DefaultMAC)
	addLink(t, lateLink, lateLinkMAC)
	root := t.TempDir()
	if err := os.Symlink("/sys", filepath.Join(root, "sys")); err != nil {
		t.Fatal(err)
	}
	imdsURL := aemmtest.Start(t, aemmtest.Config{})
	fake := newFakeNetworkctl(t)
	nodeboot := func(t *testing.T, args ...string) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), bin, append(append([]string{"internal"}, args...), "--root", root)...)
		cmd.Env = append(os.Environ(), "AWS_EC2_METADATA_SERVICE_ENDPOINT="+imdsURL,
			"PATH="+fake.dir+":"+os.Getenv("PATH"), "NODEBOOT_E2E_NETWORKCTL_STATE="+fake.state)
		out, err := cmd.CombinedOutput()
		t.Logf("nodeboot internal %s:\n%s", strings.Join(args, " "), out)
		if err != nil {
			t.Fatalf("nodeboot internal %s: %v", strings.Join(args, " "), err)
		}
	}
	udev := func(t *testing.T, action, link string) {
		t.Helper()
		nodeboot(t, "udev-net-manager", "--action", action, "--interface", link)
	}
	file := func(nodePath string) (string, bool) {
		b, err := os.ReadFile(filepath.Join(root, nodePath))
		return string(b), err == nil
	}
	decisions := filepath.Join(netmanager.DecisionDir, aemmtest.DefaultInstanceID)

	t.Run("udev-net-manager", func(t *testing.T) {
		udev(t, "add", primaryLink)
		want, err := os.ReadFile(filepath.Join(repo, "internal/node/netmanager/testdata/primary.network"))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := file(netmanager.NetworkFilePath(primaryLink)); got != string(want) {
			t.Errorf("%s:\n%s\nwant:\n%s", netmanager.NetworkFilePath(primaryLink), got, want)
		}
		if got, ok := file(netmanager.DisableDefaultPath); !ok || got != "[Match]\nName=none\n" {
			t.Errorf("catch-all drop-in: %q, %v", got, ok)
		}
		if got, _ := file(filepath.Join(decisions, primaryLink)); !strings.Contains(got, `"manager":"io.systemd.Network"`) {
			t.Errorf("remembered for %s: %q", primaryLink, got)
		}
		udev(t, "remove", primaryLink)
		if _, ok := file(netmanager.NetworkFilePath(primaryLink)); ok {
			t.Error("the .network file outlived the interface")
		}

		// The run phase has started: what was decided stays decided...
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(netmanager.RunStartedMarker)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, netmanager.RunStartedMarker), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		udev(t, "add", primaryLink)
		if got, _ := file(netmanager.NetworkFilePath(primaryLink)); got != string(want) {
			t.Error("the remembered decision was not kept after the run phase started")
		}
		// ...and an ENI attached now is the VPC CNI's.
		udev(t, "add", lateLink)
		if _, ok := file(netmanager.NetworkFilePath(lateLink)); ok {
			t.Error("networkd got an interface attached after the run phase started")
		}
		if got, _ := file(filepath.Join(decisions, lateLink)); !strings.Contains(got, `"manager":"cni"`) {
			t.Errorf("remembered for %s: %q", lateLink, got)
		}
		// Without a remembered decision, the primary ENI too goes to the CNI
		// once the run phase started (nodeadm's case does the same).
		udev(t, "remove", primaryLink)
		if err := os.RemoveAll(filepath.Join(root, netmanager.DecisionDir)); err != nil {
			t.Fatal(err)
		}
		udev(t, "add", primaryLink)
		if _, ok := file(netmanager.NetworkFilePath(primaryLink)); ok {
			t.Error("a .network file was written for an interface decided for the CNI")
		}
	})

	t.Run("boot-hook", func(t *testing.T) {
		for _, tc := range []struct {
			name, manager, finalLate string
		}{
			{"late interface remembered for networkd", netmanager.ManagerNetworkd, "configured"},
			{"late interface remembered for the CNI", netmanager.ManagerCNI, "unmanaged"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				d := netmanager.Decision{MAC: lateLinkMAC, Manager: tc.manager}
				rootfs.WriteFile(t, root, filepath.Join(decisions, lateLink), string(d.Encode()))
				fake.set(t, "pending", "pending", "pending")
				var final atomic.Bool
				done := make(chan struct{})
				go func() {
					defer close(done)
					fake.cycleInvalid(t, t.Context())
					// Flagged before it is written: the hook may see the
					// final state and return before this goroutine runs
					// again after the write.
					final.Store(true)
					fake.set(t, "configured", tc.finalLate, "unmanaged")
				}()
				nodeboot(t, "boot-hook")
				if !final.Load() {
					t.Error("boot-hook returned before the links reached the expected states")
				}
				<-done
			})
		}
	})
}

// addLink creates a veth pair whose first end is name with the given MAC,
// removed when the test ends.
func addLink(t *testing.T, name, mac string) {
	t.Helper()
	if out, err := exec.Command("ip", "link", "add", name, "address", mac, "type", "veth", "peer", "name", name+"p").CombinedOutput(); err != nil {
		t.Fatalf("ip link add %s: %v: %s", name, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("ip", "link", "del", name).CombinedOutput(); err != nil {
			t.Errorf("ip link del %s: %v: %s", name, err, out)
		}
	})
}

// fakeNetworkctl is the networkctl stand-in: a script on PATH that prints
// the state file the test writes.
type fakeNetworkctl struct {
	dir, state string
}

func newFakeNetworkctl(t *testing.T) *fakeNetworkctl {
	t.Helper()
	f := &fakeNetworkctl{dir: t.TempDir()}
	f.state = filepath.Join(f.dir, "links.json")
	script := "#!/bin/sh\n" +
		"[ \"$*\" = \"list --json=short\" ] || { echo \"networkctl stand-in: unexpected arguments: $*\" >&2; exit 1; }\n" +
		"exec cat \"$NODEBOOT_E2E_NETWORKCTL_STATE\"\n"
	if err := os.WriteFile(filepath.Join(f.dir, "networkctl"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return f
}

// set writes the link states (renamed into place, never half written).
func (f *fakeNetworkctl) set(t *testing.T, primary, late, lo string) {
	json := `{"Interfaces":[` +
		`{"Name":"lo","AdministrativeState":"` + lo + `"},` +
		`{"Name":"` + primaryLink + `","AdministrativeState":"` + primary + `"},` +
		`{"Name":"` + lateLink + `","AdministrativeState":"` + late + `"}]}`
	tmp := f.state + ".tmp"
	if err := os.WriteFile(tmp, []byte(json), 0o644); err != nil {
		t.Error(err)
		return
	}
	if err := os.Rename(tmp, f.state); err != nil {
		t.Error(err)
	}
}

// linkStates are every administrative state networkctl reports.
var linkStates = []string{"missing", "off", "no-carrier", "dormant", "degraded-carrier", "carrier", "degraded",
	"enslaved", "routable", "pending", "initialized", "configuring", "configured", "unmanaged", "failed", "linger"}

// cycleInvalid goes through the combinations in which the primary link is
// not configured yet, as nodeadm's boot-hook case does, pausing after each
// primary state for longer than the hook's polling interval.
func (f *fakeNetworkctl) cycleInvalid(t *testing.T, ctx context.Context) {
	for _, primary := range linkStates {
		if primary == "configured" {
			continue
		}
		for _, other := range linkStates {
			if other != "unmanaged" {
				f.set(t, primary, other, other)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}
