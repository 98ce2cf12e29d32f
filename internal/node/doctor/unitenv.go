package doctor

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/coreos/go-systemd/v22/unit"

	"github.com/nodeboot/nodeboot/internal/config/systemdsyntax"
)

// systemdDefaultPath is the PATH systemd gives services (its compiled-in
// default, with /sbin and /bin for hosts whose /usr is not merged).
const systemdDefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// unitDirs are the system unit search path, highest priority first.
var unitDirs = []string{"/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system"}

// managerConfDirs hold the manager's system.conf drop-ins, highest priority first.
var managerConfDirs = []string{"/etc/systemd/system.conf.d", "/run/systemd/system.conf.d", "/usr/local/lib/systemd/system.conf.d", "/usr/lib/systemd/system.conf.d"}

// EnvVar is one variable of a service's environment and where it was set.
type EnvVar struct {
	Value string
	// Source names the file and directive ("/etc/systemd/system/kubelet.service.d/http-proxy.conf Environment=").
	Source string
}

// ServiceEnv is a systemd service's environment as systemd builds it:
// the manager's default PATH and DefaultEnvironment, then the unit's
// Environment= (fragment, then drop-ins in order), then its
// EnvironmentFile= files (which override Environment=), then
// UnsetEnvironment=.
type ServiceEnv struct {
	Unit string
	Vars map[string]EnvVar
	// Files are the unit files read, in the order systemd applies them.
	Files []string
	// Problems are what would stop systemd from starting the unit (an
	// EnvironmentFile= without "-" that does not exist) or was unreadable.
	Problems []string
}

// Get returns a variable's value ("" when unset).
func (e ServiceEnv) Get(name string) string { return e.Vars[name].Value }

// List returns the environment as KEY=VALUE, sorted.
func (e ServiceEnv) List() []string {
	out := make([]string, 0, len(e.Vars))
	for _, k := range sortedKeys(e.Vars) {
		out = append(out, k+"="+e.Vars[k].Value)
	}
	return out
}

// ServiceEnvironment computes the environment systemd gives unitName on the
// node under root ("/": this host), as the doctor reads it.
func ServiceEnvironment(root, unitName string) ServiceEnv {
	return unitEnvironment(Files{Root: root}, unitName)
}

// unitEnvironment computes the environment systemd gives unitName.
func unitEnvironment(f Files, unitName string) ServiceEnv {
	env := ServiceEnv{Unit: unitName, Vars: map[string]EnvVar{"PATH": {Value: systemdDefaultPath, Source: "systemd's default"}}}
	env.managerDefaults(f)
	var envFiles []envFileRef
	for _, p := range unitFiles(f, unitName) {
		opts, err := readUnit(f, p)
		if err != nil {
			env.Problems = append(env.Problems, err.Error())
			continue
		}
		env.Files = append(env.Files, p)
		envFiles = env.apply(opts, p, envFiles)
	}
	for _, ef := range envFiles {
		env.loadFile(f, ef)
	}
	return env
}

// envFileRef is one EnvironmentFile= setting.
type envFileRef struct {
	path, from string
	optional   bool
}

// apply applies the [Service] options of one unit file, in order.
func (e *ServiceEnv) apply(opts []*unit.UnitOption, from string, files []envFileRef) []envFileRef {
	for _, o := range opts {
		if o.Section != "Service" {
			continue
		}
		switch o.Name {
		case "Environment":
			e.assign(o.Value, from+" Environment=")
		case "EnvironmentFile":
			files = appendEnvFile(files, o.Value, from)
		case "UnsetEnvironment":
			for _, w := range systemdsyntax.AssignmentWords(o.Value) {
				delete(e.Vars, strings.SplitN(w, "=", 2)[0])
			}
		}
	}
	return files
}

// appendEnvFile adds an EnvironmentFile= value; an empty one resets the list.
func appendEnvFile(files []envFileRef, value, from string) []envFileRef {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil
	}
	optional := strings.HasPrefix(value, "-")
	return append(files, envFileRef{path: strings.TrimPrefix(value, "-"), from: from, optional: optional})
}

// assign applies an Environment=/DefaultEnvironment= value (quoted words
// of KEY=VALUE).
func (e *ServiceEnv) assign(value, source string) {
	for _, w := range systemdsyntax.AssignmentWords(value) {
		if k, v, ok := strings.Cut(w, "="); ok && k != "" {
			e.Vars[k] = EnvVar{Value: v, Source: source}
		}
	}
}

// managerDefaults applies the manager's DefaultEnvironment= of
// system.conf and its drop-ins.
func (e *ServiceEnv) managerDefaults(f Files) {
	for _, p := range append([]string{"/etc/systemd/system.conf"}, dropIns(f, managerConfDirs)...) {
		opts, err := readUnit(f, p)
		if err != nil {
			continue
		}
		for _, o := range opts {
			if o.Section == "Manager" && o.Name == "DefaultEnvironment" {
				e.assign(o.Value, p+" DefaultEnvironment=")
			}
		}
	}
}

// loadFile applies one EnvironmentFile=.
func (e *ServiceEnv) loadFile(f Files, ef envFileRef) {
	data, err := f.Read(ef.path)
	if err != nil {
		if !ef.optional || !errors.Is(err, fs.ErrNotExist) {
			e.Problems = append(e.Problems, fmt.Sprintf("EnvironmentFile=%s (in %s): %v", ef.path, ef.from, err))
		}
		return
	}
	for k, v := range systemdsyntax.ParseEnvironmentFile(data) {
		e.Vars[k] = EnvVar{Value: v, Source: ef.path + " (EnvironmentFile= in " + ef.from + ")"}
	}
}

// unitFiles returns the fragment of unitName (the first found on the
// search path) and its drop-ins: *.conf of unitName.d and of the type's
// service.d in every unit directory, a name in a higher-priority
// directory (or the more specific one) hiding the same name elsewhere,
// applied in lexical order of their names.
func unitFiles(f Files, unitName string) []string {
	var out []string
	for _, d := range unitDirs {
		if p := path.Join(d, unitName); f.Exists(p) {
			out = append(out, p)
			break
		}
	}
	var dirs []string
	for _, d := range unitDirs {
		dirs = append(dirs, path.Join(d, unitName+".d"), path.Join(d, "service.d"))
	}
	return append(out, dropIns(f, dirs)...)
}

// dropIns lists the *.conf files of dirs (highest priority first), each
// name once, sorted by name.
func dropIns(f Files, dirs []string) []string {
	byName := map[string]string{}
	for _, d := range dirs {
		entries, err := f.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if _, seen := byName[e.Name()]; !seen && strings.HasSuffix(e.Name(), ".conf") && !e.IsDir() {
				byName[e.Name()] = path.Join(d, e.Name())
			}
		}
	}
	out := make([]string, 0, len(byName))
	for _, name := range sortedKeys(byName) {
		out = append(out, byName[name])
	}
	return out
}

// readUnit parses a unit file or drop-in with go-systemd's unit parser
// (sections, continuation lines, comments).
func readUnit(f Files, p string) ([]*unit.UnitOption, error) {
	data, err := f.Read(p)
	if err != nil {
		return nil, err
	}
	opts, err := unit.DeserializeOptions(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return opts, nil
}

// processEnvironment reads /proc/PID/environ (NUL-separated KEY=VALUE).
func processEnvironment(f Files, pid int) (map[string]string, error) {
	data, err := f.Read(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for kv := range bytes.SplitSeq(data, []byte{0}) {
		if k, v, ok := bytes.Cut(kv, []byte("=")); ok && len(k) > 0 {
			out[string(k)] = string(v)
		}
	}
	return out, nil
}

// proxyVariables are the variables that select a proxy.
var proxyVariables = []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"}

// proxyDiffers lists the proxy variables a running process has with
// another value than its unit would give it now (a drop-in changed
// without a restart).
func proxyDiffers(unitEnv ServiceEnv, proc map[string]string) []string {
	var out []string
	for _, k := range proxyVariables {
		if unitEnv.Get(k) != proc[k] {
			out = append(out, k)
		}
	}
	return slices.Clip(out)
}
