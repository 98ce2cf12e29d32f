//go:build faultinject

package apply

import (
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Fault injection, compiled only into binaries built with -tags
// faultinject (the fault suite in test/fault builds one; release builds
// never contain it). With NODEBOOT_FAULT_PAUSE_AFTER_STEP=N, Apply stops
// after its N-th commit step: it creates $NODEBOOT_FAULT_DIR/paused and
// waits until $NODEBOOT_FAULT_DIR/resume exists. The suite kills the
// process there, or starts a second run, in the middle of the renames.
func failpoint(step int) {
	n, err := strconv.Atoi(os.Getenv("NODEBOOT_FAULT_PAUSE_AFTER_STEP"))
	dir := os.Getenv("NODEBOOT_FAULT_DIR")
	if err != nil || n != step || dir == "" {
		return
	}
	_ = os.WriteFile(filepath.Join(dir, "paused"), nil, 0o644)
	for {
		if _, err := os.Stat(filepath.Join(dir, "resume")); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
