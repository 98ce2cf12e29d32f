package netmanager

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/aws/imds"
	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
	"github.com/nodeboot/nodeboot/internal/testing/rootfs"
)

const lateMAC = "0e:49:61:0f:c3:99"

// newHelper serves AEMM's default instance (primary MAC 0e:49:61:0f:c3:11)
// and gives root two interfaces: eth0, the primary ENI, and eth1.
func newHelper(t *testing.T, run Runner) (Helper, string) {
	t.Helper()
	awstest.IsolateEnv(t)
	endpoint := aemmtest.Start(t, aemmtest.Config{})
	root := t.TempDir()
	rootfs.WriteFile(t, root, "/sys/class/net/eth0/address", aemmtest.DefaultMAC+"\n")
	rootfs.WriteFile(t, root, "/sys/class/net/eth1/address", lateMAC+"\n")
	rootfs.WriteFile(t, root, "/sys/class/net/lo/address", "00:00:00:00:00:00\n")
	return Helper{Root: root, Metadata: imds.New(imds.Options{Endpoint: endpoint, MaxAttempts: 3, BaseDelay: time.Millisecond}),
		Run: run, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Poll: time.Millisecond}, root
}

func readFile(t *testing.T, root, nodePath string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, nodePath))
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

// TestUdevNetManager follows nodeadm's udev-net-manager case: the primary
// interface at boot, a remove and re-add after the run phase started, and
// an interface attached later.
func TestUdevNetManager(t *testing.T) {
	h, root := newHelper(t, nil)
	ctx := context.Background()
	decision := func(iface string) string {
		s, _ := readFile(t, root, filepath.Join(DecisionDir, aemmtest.DefaultInstanceID, iface))
		return strings.TrimSpace(s)
	}

	if err := h.UdevAdd(ctx, "eth0"); err != nil {
		t.Fatal(err)
	}
	got, ok := readFile(t, root, NetworkFilePath("eth0"))
	if !ok {
		t.Fatal("no .network file for the primary interface")
	}
	if want := string(golden.Read(t, "testdata/primary.network")); got != want {
		t.Errorf("70-eks-eth0.network:\n%s\nwant:\n%s", got, want)
	}
	if s, ok := readFile(t, root, DisableDefaultPath); !ok || s != string(DisableDefault()) {
		t.Errorf("catch-all drop-in = %q, %v", s, ok)
	}
	if d := decision("eth0"); d != `{"mac":"0e:49:61:0f:c3:11","manager":"io.systemd.Network"}` {
		t.Errorf("remembered = %s", d)
	}

	if err := h.UdevRemove(ctx, "eth0"); err != nil {
		t.Fatal(err)
	}
	if _, ok := readFile(t, root, NetworkFilePath("eth0")); ok {
		t.Error("the .network file outlived its interface")
	}

	rootfs.WriteFile(t, root, RunStartedMarker, "")
	if err := h.UdevAdd(ctx, "eth0"); err != nil {
		t.Fatal(err)
	}
	if _, ok := readFile(t, root, NetworkFilePath("eth0")); !ok {
		t.Error("the remembered decision was not used after the run phase started")
	}

	if err := h.UdevAdd(ctx, "eth1"); err != nil {
		t.Fatal(err)
	}
	if _, ok := readFile(t, root, NetworkFilePath("eth1")); ok {
		t.Error("networkd got an interface attached after the run phase started")
	}
	if d := decision("eth1"); d != `{"mac":"`+lateMAC+`","manager":"cni"}` {
		t.Errorf("remembered = %s", d)
	}

	if err := h.UdevAdd(ctx, "../eth0"); err == nil {
		t.Error("an interface name with a slash was accepted")
	}
}

// states is a networkctl stand-in (the real one needs systemd-networkd)
// that answers with each state in turn, then keeps the last one.
type states struct {
	mu    sync.Mutex
	lists []string
	calls int
}

func (s *states) Output(_ context.Context, name string, args ...string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if name != "networkctl" || strings.Join(args, " ") != "list --json=short" {
		return nil, errors.New("unexpected command " + name + " " + strings.Join(args, " "))
	}
	i := min(s.calls, len(s.lists)-1)
	s.calls++
	return []byte(s.lists[i]), nil
}

func list(pairs ...string) string {
	var b strings.Builder
	b.WriteString(`{"Interfaces":[`)
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"Name":"` + pairs[i] + `","AdministrativeState":"` + pairs[i+1] + `"}`)
	}
	b.WriteString("]}")
	return b.String()
}

// TestBootHookWaitsForTheExpectedStates: the hook returns only once the
// primary and the remembered networkd interfaces are configured and the
// others unmanaged.
func TestBootHookWaitsForTheExpectedStates(t *testing.T) {
	for _, tc := range []struct {
		name     string
		eth1     string // remembered manager of eth1
		sequence []string
	}{
		{"eth1 remembered for networkd", ManagerNetworkd, []string{
			list("lo", "pending", "eth0", "pending", "eth1", "pending"),
			list("lo", "unmanaged", "eth0", "configured", "eth1", "configuring"),
			list("lo", "unmanaged", "eth0", "configuring", "eth1", "configured"),
			list("lo", "unmanaged", "eth0", "configured", "eth1", "configured"),
		}},
		{"eth1 remembered for the CNI", ManagerCNI, []string{
			list("lo", "pending", "eth0", "pending", "eth1", "pending"),
			list("lo", "unmanaged", "eth0", "configured", "eth1", "configured"),
			list("lo", "configuring", "eth0", "configured", "eth1", "unmanaged"),
			list("lo", "unmanaged", "eth0", "configured", "eth1", "unmanaged"),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := &states{lists: tc.sequence}
			h, root := newHelper(t, run)
			rootfs.WriteFile(t, root, filepath.Join(DecisionDir, aemmtest.DefaultInstanceID, "eth1"),
				string(Decision{MAC: lateMAC, Manager: tc.eth1}.Encode()))
			if err := h.BootHook(context.Background()); err != nil {
				t.Fatal(err)
			}
			if run.calls != len(tc.sequence) {
				t.Fatalf("returned after %d networkctl calls, want %d (the first ready state)", run.calls, len(tc.sequence))
			}
		})
	}
}

// TestBootHookIsBounded: links that never settle end the hook with an
// error saying what it waited for.
func TestBootHookIsBounded(t *testing.T) {
	h, _ := newHelper(t, &states{lists: []string{list("lo", "unmanaged", "eth0", "degraded")}})
	h.Timeout = 50 * time.Millisecond
	err := h.BootHook(context.Background())
	if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), "eth0 to be configured (degraded)") {
		t.Fatalf("err = %v", err)
	}
}
