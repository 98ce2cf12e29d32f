package systemdbus

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	sddbus "github.com/coreos/go-systemd/v22/dbus"
)

// TestGoSystemdClient drives the bus with go-systemd, the client both
// agents use: a restart whose job completes, ActiveState, a stop, enable.
func TestGoSystemdClient(t *testing.T) {
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Skip("dbus-daemon not installed")
	}
	dir, err := os.MkdirTemp("", "sdbus-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bus := Start(t, filepath.Join(dir, "bus"))
	t.Setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.Address)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	conn, err := sddbus.NewSystemConnectionContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	done := make(chan string, 1)
	if _, err := conn.RestartUnitContext(ctx, "kubelet.service", "replace", done); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r != "done" {
		t.Fatalf("job result %q", r)
	}
	prop, err := conn.GetUnitPropertyContext(ctx, "kubelet.service", "ActiveState")
	if err != nil || prop.Value.Value() != "active" {
		t.Fatalf("ActiveState = %v, %v", prop, err)
	}
	if _, err := conn.StopUnitContext(ctx, "systemd-resolved.service", "replace", nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := conn.EnableUnitFilesContext(ctx, []string{"kubelet.service"}, false, false); err != nil {
		t.Fatal(err)
	}
	if err := conn.ReloadContext(ctx); err != nil {
		t.Fatal(err)
	}
	want := []Call{{"RestartUnit", "kubelet.service"}, {"StopUnit", "systemd-resolved.service"}, {"EnableUnitFiles", "kubelet.service"}, {"Reload", ""}}
	if got := bus.Calls(); !slices.Equal(got, want) {
		t.Fatalf("calls = %v, want %v", got, want)
	}
}

func TestEscapePath(t *testing.T) {
	for unit, want := range map[string]string{"kubelet.service": "kubelet_2eservice", "systemd-resolved.service": "systemd_2dresolved_2eservice", "0x.service": "_30x_2eservice"} {
		if got := escapePath(unit); got != want || unescapePath(got) != unit {
			t.Errorf("escapePath(%q) = %q (back: %q), want %q", unit, got, unescapePath(got), want)
		}
	}
}
