package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRolloutExecsNodebootRollout checks that `nodeboot rollout ARGS` replaces
// itself with the nodeboot-rollout next to it (same PID, arguments and
// environment, its exit code) and fails with a usage error without it.
func TestRolloutExecsNodebootRollout(t *testing.T) {
	empty := t.TempDir()
	res := run(t, []string{"PATH=" + empty}, "rollout", "status", "r1")
	if res.code != 2 || !strings.Contains(res.stderr, "nodeboot-rollout, which is not installed") {
		t.Fatalf("without nodeboot-rollout: code %d stderr %q; want 2 and a clear message", res.code, res.stderr)
	}

	fake := filepath.Join(filepath.Dir(binary), "nodeboot-rollout")
	script := "#!/bin/sh\necho \"args:$*\"\necho \"env:$NODEBOOT_TEST_MARK\"\nexit 7\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(fake) })
	res = run(t, []string{"PATH=" + empty, "NODEBOOT_TEST_MARK=kept"}, "rollout", "status", "r1", "--watch")
	if res.code != 7 || res.stdout != "args:status r1 --watch\nenv:kept\n" {
		t.Errorf("code %d stdout %q stderr %q; want nodeboot-rollout's output and exit code 7", res.code, res.stdout, res.stderr)
	}
}
