package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
