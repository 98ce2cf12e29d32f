// Package systemdbus runs a real dbus-daemon as a test's system bus and
// answers, on it, the systemd manager calls node agents make: daemon
// reloads, unit starts, stops and restarts with their job signals, unit
// enablement and the units' ActiveState. It records every call, so a test
// can compare what two agents asked of systemd.
//
// It is a stub of systemd's D-Bus API, not of the bus: the agents' real
// clients (go-systemd, systemctl) speak the real wire protocol to a real
// dbus-daemon. systemd itself cannot serve here: as PID 1 of a namespace on
// a shared host it takes over the host's cgroups and cleans the host's /tmp.
package systemdbus

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// Names on the bus, as systemd uses them.
const (
	busName      = "org.freedesktop.systemd1"
	managerPath  = dbus.ObjectPath("/org/freedesktop/systemd1")
	managerIface = "org.freedesktop.systemd1.Manager"
	unitIface    = "org.freedesktop.systemd1.Unit"
	unitPrefix   = "/org/freedesktop/systemd1/unit"
)

// Call is one request an agent made of systemd: Method is the manager
// method (Reload, StartUnit, RestartUnit, StopUnit, EnableUnitFiles, …),
// Unit the unit it named, if any.
type Call struct {
	Method string
	Unit   string
}

func (c Call) String() string {
	if c.Unit == "" {
		return c.Method
	}
	return c.Method + " " + c.Unit
}

// Bus is a running system bus with the systemd manager on it.
type Bus struct {
	// Address is the bus address for DBUS_SYSTEM_BUS_ADDRESS.
	Address string
	conn    *dbus.Conn
	mgr     *manager
}

// Start runs dbus-daemon listening on socketPath (its directory must
// exist), claims systemd's name on it and serves the manager until the test
// ends. Units listed in active start out active, as on a booted node.
func Start(t testing.TB, socketPath string, active ...string) *Bus {
	t.Helper()
	addr := "unix:path=" + socketPath
	startDaemon(t, addr)
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("systemdbus: connect %s: %v", addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	m := &manager{conn: conn, state: map[string]string{}}
	for _, u := range active {
		m.state[u] = "active"
	}
	if err := m.export(); err != nil {
		t.Fatalf("systemdbus: %v", err)
	}
	reply, err := conn.RequestName(busName, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("systemdbus: request name %s: %v (reply %d)", busName, err, reply)
	}
	return &Bus{Address: addr, conn: conn, mgr: m}
}

// Calls returns the calls made so far, in order.
func (b *Bus) Calls() []Call {
	b.mgr.mu.Lock()
	defer b.mgr.mu.Unlock()
	return slices.Clone(b.mgr.calls)
}

// Reset forgets the calls made so far.
func (b *Bus) Reset() {
	b.mgr.mu.Lock()
	defer b.mgr.mu.Unlock()
	b.mgr.calls = nil
}

// busConfig is a system bus that lets root own and call everything.
const busConfig = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>%s</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
`

// startDaemon runs dbus-daemon on addr until the test ends and waits until
// it listens (it prints its address then).
func startDaemon(t testing.TB, addr string) {
	t.Helper()
	conf := filepath.Join(t.TempDir(), "system.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(busConfig, addr)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("dbus-daemon", "--config-file="+conf, "--nofork", "--nopidfile", "--print-address=1")
	// A test killed before its cleanups must not leave the daemon behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer // it warns that it cannot raise its fd limit
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("systemdbus: dbus-daemon (apt-get install dbus-daemon): %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan error, 1)
	go func() {
		_, err := bufio.NewReader(out).ReadString('\n')
		ready <- err
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatalf("systemdbus: dbus-daemon did not start: %v\n%s", err, stderr.String())
		}
	case <-time.After(time.Minute): // a hang, never a slow start
		t.Fatalf("systemdbus: dbus-daemon printed no address in a minute\n%s", stderr.String())
	}
}

// manager answers org.freedesktop.systemd1.Manager and the units'
// org.freedesktop.systemd1.Unit properties.
type manager struct {
	conn  *dbus.Conn
	mu    sync.Mutex
	calls []Call
	state map[string]string // unit → ActiveState
	jobs  uint32
}

func (m *manager) export() error {
	methods := map[string]any{
		"Reload":              m.reload,
		"StartUnit":           m.job("StartUnit", "active"),
		"RestartUnit":         m.job("RestartUnit", "active"),
		"TryRestartUnit":      m.job("TryRestartUnit", "active"),
		"ReloadUnit":          m.job("ReloadUnit", "active"),
		"ReloadOrRestartUnit": m.job("ReloadOrRestartUnit", "active"),
		"StopUnit":            m.job("StopUnit", "inactive"),
		"EnableUnitFiles":     m.enable,
		"DisableUnitFiles":    m.disable,
		"Subscribe":           func() *dbus.Error { return nil },
		"Unsubscribe":         func() *dbus.Error { return nil },
		"GetUnit":             m.getUnit,
		"LoadUnit":            m.getUnit,
	}
	if err := m.conn.ExportMethodTable(methods, managerPath, managerIface); err != nil {
		return err
	}
	props := map[string]any{"Get": m.get, "GetAll": m.getAll}
	return m.conn.ExportSubtreeMethodTable(props, unitPrefix, "org.freedesktop.DBus.Properties")
}

func (m *manager) record(method, unit string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, Call{Method: method, Unit: unit})
}

func (m *manager) reload() *dbus.Error {
	m.record("Reload", "")
	return nil
}

// job returns a unit method that records the call, moves the unit to
// state and, once the reply is on its way, signals the job done.
func (m *manager) job(method, state string) func(unit, mode string) (dbus.ObjectPath, *dbus.Error) {
	return func(unit, _ string) (dbus.ObjectPath, *dbus.Error) {
		m.mu.Lock()
		m.calls = append(m.calls, Call{Method: method, Unit: unit})
		m.state[unit] = state
		m.jobs++
		id := m.jobs
		m.mu.Unlock()
		job := dbus.ObjectPath(fmt.Sprintf("%s/job/%d", managerPath, id))
		go m.conn.Emit(managerPath, managerIface+".JobRemoved", id, job, unit, "done")
		return job, nil
	}
}

// unitFileChange is one (type, file, destination) entry of
// EnableUnitFiles' and DisableUnitFiles' answers.
type unitFileChange struct {
	Type, Filename, Destination string
}

func (m *manager) enable(files []string, _, _ bool) (bool, []unitFileChange, *dbus.Error) {
	var changes []unitFileChange
	for _, f := range files {
		m.record("EnableUnitFiles", f)
		changes = append(changes, unitFileChange{"symlink", "/etc/systemd/system/multi-user.target.wants/" + f, "/usr/lib/systemd/system/" + f})
	}
	return true, changes, nil
}

func (m *manager) disable(files []string, _ bool) ([]unitFileChange, *dbus.Error) {
	var changes []unitFileChange
	for _, f := range files {
		m.record("DisableUnitFiles", f)
		changes = append(changes, unitFileChange{"unlink", "/etc/systemd/system/multi-user.target.wants/" + f, ""})
	}
	return changes, nil
}

func (m *manager) getUnit(unit string) (dbus.ObjectPath, *dbus.Error) {
	return dbus.ObjectPath(unitPrefix + "/" + escapePath(unit)), nil
}

// get answers Properties.Get on a unit: ActiveState (inactive unless a job
// started it) and SubState; other properties are empty strings.
func (m *manager) get(msg dbus.Message, iface, prop string) (dbus.Variant, *dbus.Error) {
	unit := unescapePath(strings.TrimPrefix(string(msg.Headers[dbus.FieldPath].Value().(dbus.ObjectPath)), unitPrefix+"/"))
	m.mu.Lock()
	state, ok := m.state[unit]
	m.mu.Unlock()
	if !ok {
		state = "inactive"
	}
	switch prop {
	case "ActiveState":
		return dbus.MakeVariant(state), nil
	case "SubState":
		if state == "active" {
			return dbus.MakeVariant("running"), nil
		}
		return dbus.MakeVariant("dead"), nil
	case "LoadState":
		return dbus.MakeVariant("loaded"), nil
	}
	return dbus.MakeVariant(""), nil
}

func (m *manager) getAll(msg dbus.Message, iface string) (map[string]dbus.Variant, *dbus.Error) {
	out := map[string]dbus.Variant{}
	for _, p := range []string{"ActiveState", "SubState", "LoadState"} {
		v, _ := m.get(msg, iface, p)
		out[p] = v
	}
	return out, nil
}

// escapePath escapes a unit name into an object path element the way
// systemd (and go-systemd's PathBusEscape) does: every byte outside
// [A-Za-z0-9] becomes _XX, and a leading digit is escaped too.
func escapePath(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (c >= '0' && c <= '9' && i > 0) {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "_%02x", c)
	}
	return b.String()
}

func unescapePath(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && i+2 < len(s) {
			var c byte
			if _, err := fmt.Sscanf(s[i+1:i+3], "%02x", &c); err == nil {
				b.WriteByte(c)
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
