//go:build oracle

package oracle

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/nodeboot/nodeboot/internal/node/doctor"
)

// systemdBinary is the real service manager (Debian's systemd package):
// `systemd --test` loads a unit with its drop-ins from $SYSTEMD_UNIT_PATH
// and prints it as loaded (Environment=, EnvironmentFile=,
// UnsetEnvironment= as systemd keeps them), without being PID 1.
const systemdBinary = "/lib/systemd/systemd"

// unitDirs are the unit search path the doctor reads, highest priority
// first, as systemd's own for the system manager.
var unitDirs = []string{"/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system"}

// unitEnvCases are unit files laid out as operators and AWS's guides lay
// out proxy settings for kubelet.service, each read by the doctor and by
// the real systemd. Paths are relative to the node's root.
var unitEnvCases = []struct {
	name  string
	files map[string]string
}{
	{name: "proxy drop-in, several assignments, quoting", files: map[string]string{
		"/usr/lib/systemd/system/kubelet.service":               "[Service]\nExecStart=/usr/bin/kubelet\nEnvironment=A=1\n",
		"/etc/systemd/system/kubelet.service.d/http-proxy.conf": "[Service]\nEnvironment=\"HTTPS_PROXY=http://proxy.internal:3128\" \"NO_PROXY=localhost, 127.0.0.1,169.254.169.254,.internal\" 'http_proxy=http://x:1'\n",
	}},
	{name: "continuation lines and a comment inside", files: map[string]string{
		"/etc/systemd/system/kubelet.service": "[Service]\nExecStart=/usr/bin/kubelet\nEnvironment=\"HTTPS_PROXY=http://p:3128\" \\\n# a comment inside\n  \"NO_PROXY=a,b\" \\\n  C=3\nEnvironment=\\\n  \"CONTINUED=a b\"\n",
	}},
	{name: "later drop-in overrides, empty Environment= resets", files: map[string]string{
		"/usr/lib/systemd/system/kubelet.service":               "[Service]\nExecStart=/usr/bin/kubelet\nEnvironment=FROM_FRAGMENT=1 HTTPS_PROXY=http://old:1\n",
		"/usr/lib/systemd/system/kubelet.service.d/10-a.conf":   "[Service]\nEnvironment=HTTPS_PROXY=http://a:1 KEEP=no\n",
		"/etc/systemd/system/kubelet.service.d/20-reset.conf":   "[Service]\nEnvironment=\nEnvironment=HTTPS_PROXY=http://reset:1\n",
		"/run/systemd/system/kubelet.service.d/30-run.conf":     "[Service]\nEnvironment=NO_PROXY=from-run\n",
		"/usr/lib/systemd/system/kubelet.service.d/30-run.conf": "[Service]\nEnvironment=HIDDEN=by-run\n",
		"/usr/lib/systemd/system/service.d/50-all.conf":         "[Service]\nEnvironment=ALL_SERVICES=yes\n",
	}},
	{name: "specifiers: %% and the unit's name; percent-encoded password dropped", files: map[string]string{
		"/usr/lib/systemd/system/kubelet.service":               "[Service]\nExecStart=/usr/bin/kubelet\nEnvironment=PCT=100%% UNIT=%n NAME=%N PREFIX=%p FILE=%f INSTANCE=x%iy HEX=\"\\x25n\" PUNCT=%- END=9%\n",
		"/etc/systemd/system/kubelet.service.d/http-proxy.conf": "[Service]\nEnvironment=\"HTTPS_PROXY=http://ops:p%40ss@proxy:3128\" \"HTTP_PROXY=http://ops:p%%40ss@proxy:3128\"\n",
	}},
	{name: "bad escapes and quoting drop the rest of the line", files: map[string]string{
		"/usr/lib/systemd/system/kubelet.service": "[Service]\nExecStart=/usr/bin/kubelet\nEnvironment=BEFORE=1 BAD=C:\\dir AFTER=2\nEnvironment=Q=\"unterminated OTHER=1\nEnvironment=ESC='\\x41\\101\\u00e9\\s' TAB=a\\tb\nEnvironment=SPACE=a\\ b NEXT=1\n",
	}},
	{name: "invalid names ignored", files: map[string]string{
		"/usr/lib/systemd/system/kubelet.service": "[Service]\nExecStart=/usr/bin/kubelet\nEnvironment=no-proxy=x a.b=1 1A=2 \"A B=3\" _ok=4 lower_https_proxy=5\n",
	}},
	{name: "EnvironmentFile= forms: optional, glob, quoted, relative, specifier, reset", files: map[string]string{
		"/usr/lib/systemd/system/kubelet.service":               "[Service]\nExecStart=/usr/bin/kubelet\nEnvironmentFile=/etc/sysconfig/dropped\nEnvironmentFile=\nEnvironmentFile=-/etc/sysconfig/kubelet\n",
		"/etc/systemd/system/kubelet.service.d/http-proxy.conf": "[Service]\nEnvironmentFile=/etc/environment\nEnvironmentFile=-/etc/kubelet.d/*.env\nEnvironmentFile=\"/etc/quoted\"\nEnvironmentFile=relative/file\nEnvironmentFile=-/etc/sysconfig/%N\nEnvironmentFile=/etc//sysconfig/../proxy\n",
	}},
	{name: "UnsetEnvironment= by name and by assignment, and its reset", files: map[string]string{
		"/usr/lib/systemd/system/kubelet.service":            "[Service]\nExecStart=/usr/bin/kubelet\nEnvironment=A=1 B=2 C=3\nUnsetEnvironment=dropped\nUnsetEnvironment=\nUnsetEnvironment=A B=9 \"C=3\" bad-name\n",
		"/etc/systemd/system/kubelet.service.d/zz-late.conf": "[Service]\nEnvironment=D=4\nUnsetEnvironment=D\n",
	}},
}

// TestUnitEnvironmentReadsAsSystemd lays out each case's unit files under
// a root, reads kubelet.service's settings with the doctor, and requires
// what the real systemd loads from the same files: the Environment= list
// (after overrides and resets, specifiers expanded, bad words ignored),
// the EnvironmentFile= list and the UnsetEnvironment= list.
func TestUnitEnvironmentReadsAsSystemd(t *testing.T) {
	requireSystemd(t)
	for _, tc := range unitEnvCases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for p, data := range tc.files {
				writeFile(t, filepath.Join(root, p), data)
			}
			got := doctor.ServiceEnvironment(root, "kubelet.service")
			want := loadedBySystemd(t, root, "kubelet.service")
			for _, setting := range []string{"Environment", "EnvironmentFile", "UnsetEnvironment"} {
				g := map[string][]string{"Environment": got.Environment, "EnvironmentFile": got.EnvironmentFiles, "UnsetEnvironment": got.UnsetEnvironment}[setting]
				if !slices.Equal(g, want[setting]) {
					t.Errorf("%s:\n doctor  %q\n systemd %q", setting, g, want[setting])
				}
			}
			if t.Failed() {
				t.Logf("doctor ignored: %q", got.Ignored)
			}
		})
	}
}

// loadedBySystemd runs `systemd --test` on root's unit directories
// (an unprivileged user: systemd refuses test mode as root) and returns
// the unit's settings as it printed them.
func loadedBySystemd(t *testing.T, root, unitName string) map[string][]string {
	t.Helper()
	targets := filepath.Join(root, "targets") // what the default dependencies need
	for _, tgt := range []string{"sysinit", "basic", "shutdown"} {
		writeFile(t, filepath.Join(targets, tgt+".target"), "[Unit]\nDefaultDependencies=no\n")
	}
	var path []string
	for _, d := range unitDirs {
		path = append(path, filepath.Join(root, d))
	}
	os.Chmod(filepath.Dir(root), 0o755) // t.TempDir's directories are 0700: let the unprivileged systemd read them
	filepath.Walk(root, func(p string, info os.FileInfo, _ error) error { return os.Chmod(p, info.Mode()|0o755) })
	cmd := exec.CommandContext(t.Context(), systemdBinary, "--test", "--system", "--no-pager", "--unit="+unitName)
	cmd.Env = []string{"HOME=/nonexistent", "XDG_RUNTIME_DIR=/nonexistent", "SYSTEMD_LOG_TARGET=console",
		"SYSTEMD_UNIT_PATH=" + strings.Join(append(path, targets), ":"), "SYSTEMD_GENERATOR_PATH=/nonexistent"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s --test: %v\n%s", systemdBinary, err, out.String())
	}
	return unitDump(t, out.String(), unitName)
}

// unitDump reads "Environment: KEY=VALUE"-style lines of one unit's block
// of systemd's dump.
func unitDump(t *testing.T, dump, unitName string) map[string][]string {
	t.Helper()
	_, block, ok := strings.Cut(dump, "-> Unit "+unitName+":\n")
	if !ok {
		t.Fatalf("systemd did not load %s:\n%s", unitName, dump)
	}
	block, _, _ = strings.Cut(block, "-> Unit ")
	out := map[string][]string{}
	for line := range strings.Lines(block) {
		name, value, ok := strings.Cut(strings.TrimLeft(strings.TrimSuffix(line, "\n"), "\t"), ": ")
		if ok && (name == "Environment" || name == "EnvironmentFile" || name == "UnsetEnvironment") {
			out[name] = append(out[name], value)
		}
	}
	return out
}

func requireSystemd(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(systemdBinary); err != nil {
		if os.Getenv("NODEBOOT_REQUIRE_E2E") != "" {
			t.Fatalf("no systemd (apt-get install systemd; test/e2e/scripts/install-deps.sh): %v", err)
		}
		t.Skip(err)
	}
}

func writeFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
