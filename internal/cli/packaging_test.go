package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
)

// TestPackagedUnitsParse: every nodeboot command line in the packaged
// systemd units parses (with %i standing for an interface name).
func TestPackagedUnitsParse(t *testing.T) {
	units, err := filepath.Glob("../../packaging/rootfs/etc/systemd/system/*.service")
	if err != nil || len(units) < 4 {
		t.Fatalf("units = %v, %v", units, err)
	}
	found := 0
	for _, u := range units {
		data, err := os.ReadFile(u)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			key, cmd, ok := strings.Cut(line, "=")
			if !ok || !strings.HasPrefix(key, "Exec") || !strings.HasPrefix(cmd, "/usr/bin/nodeboot ") {
				continue
			}
			found++
			args := strings.Fields(strings.ReplaceAll(strings.TrimPrefix(cmd, "/usr/bin/nodeboot "), "%i", "ens6"))
			if _, err := Parse(args); err != nil {
				t.Errorf("%s: %s: %v", filepath.Base(u), line, err)
			}
		}
	}
	if found < 5 {
		t.Fatalf("only %d nodeboot command lines found", found)
	}
}

// TestConfigUnitOutlastsAnAWSOutage: the config unit restarts on failure
// within a start limit, and starts the run phase once a run succeeds, so
// a node whose AWS endpoint is unreachable for longer than one run still
// joins (docs/failure-bounds.md).
func TestConfigUnitOutlastsAnAWSOutage(t *testing.T) {
	data, err := os.ReadFile("../../packaging/rootfs/etc/systemd/system/nodeboot-config.service")
	if err != nil {
		t.Fatal(err)
	}
	unit := string(data)
	for _, want := range []string{"\nRestart=on-failure\n", "\nRestartSec=", "\nStartLimitIntervalSec=", "\nStartLimitBurst=",
		"\nExecStartPost=/usr/bin/systemctl --no-block start nodeboot-run.service\n"} {
		if !strings.Contains(unit, want) {
			t.Errorf("nodeboot-config.service lacks %q", strings.TrimSpace(want))
		}
	}
	if DefaultTimeout < 2*awsconfig.DefaultCallBudget {
		t.Errorf("--timeout %s does not leave room for two AWS calls of %s each", DefaultTimeout, awsconfig.DefaultCallBudget)
	}
}
