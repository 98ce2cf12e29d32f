package isoroot

import (
	"os"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

// TestRootIsolates runs a shell in a root: it sees the simulated node, and
// what it writes stays in the root.
func TestRootIsolates(t *testing.T) {
	r := New(t, Options{Links: map[string]string{"eth0": "0e:00:00:00:00:01"}})
	script := `set -e
cat /sys/devices/system/cpu/online /sys/class/net/eth0/address
grep MemTotal /proc/meminfo
ls /sys/bus/pci/devices | wc -l
echo written > /etc/marker
echo tool > /usr/bin/isoroot-test-tool
test -r /proc/self/mountinfo`
	out, err := r.Command(t.Context(), []string{"PATH=/usr/bin:/bin"}, "/", "/bin/sh", "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"0-1", "0e:00:00:00:00:01", "16777216 kB", "\n0\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(r.Path("etc/marker")); err != nil || string(b) != "written\n" {
		t.Errorf("the root's /etc/marker: %q, %v", b, err)
	}
	for _, p := range []string{"/etc/marker", "/usr/bin/isoroot-test-tool"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s reached the host", p)
		}
	}
}
