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
	// Environment, EnvironmentFiles and UnsetEnvironment are the unit's
	// settings as systemd keeps them (and `systemctl show` prints them):
	// KEY=VALUE in order, an empty assignment having reset the list, an
	// optional file marked "-".
	Environment, EnvironmentFiles, UnsetEnvironment []string
	// Files are the unit files read, in the order systemd applies them.
	Files []string
	// Problems are what would stop systemd from starting the unit (an
	// EnvironmentFile= without "-" that does not exist) or was unreadable.
	Problems []string
	// Ignored are the assignments systemd ignores (bad quoting or escape,
	// an unknown %-specifier such as a percent-encoded "%40", an invalid
	// name, a relative EnvironmentFile=), each with its file and why.
	Ignored []string
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

// unitSettings are a unit's environment settings as systemd accumulates
// them over its fragment and drop-ins.
type unitSettings struct {
	env      []string          // Environment=, KEY=VALUE in order
	sources  map[string]string // where each KEY of env was set
	envFiles []envFileRef
	unset    []string
}

// unitEnvironment computes the environment systemd gives unitName.
func unitEnvironment(f Files, unitName string) ServiceEnv {
	env := ServiceEnv{Unit: unitName, Vars: map[string]EnvVar{"PATH": {Value: systemdDefaultPath, Source: "systemd's default"}}}
	env.managerDefaults(f)
	set := unitSettings{sources: map[string]string{}}
	for _, p := range unitFiles(f, unitName) {
		opts, err := readUnit(f, p)
		if err != nil {
			env.Problems = append(env.Problems, err.Error())
			continue
		}
		env.Files = append(env.Files, p)
		env.apply(&set, opts, p, unitResolver(unitName, env.Files[0]))
	}
	env.Environment, env.UnsetEnvironment = set.env, set.unset
	for _, kv := range set.env {
		k, v, _ := strings.Cut(kv, "=")
		env.Vars[k] = EnvVar{Value: v, Source: set.sources[k]}
	}
	for _, ef := range set.envFiles {
		env.EnvironmentFiles = append(env.EnvironmentFiles, map[bool]string{true: "-"}[ef.optional]+ef.path)
		env.loadFiles(f, ef)
	}
	for _, u := range set.unset {
		if k, v, hasValue := strings.Cut(u, "="); !hasValue || env.Vars[k].Value == v {
			delete(env.Vars, k)
		}
	}
	return env
}

// envFileRef is one EnvironmentFile= setting.
type envFileRef struct {
	path, from string
	optional   bool
}

// apply applies the [Service] options of one unit file, in order.
func (e *ServiceEnv) apply(set *unitSettings, opts []*unit.UnitOption, from string, resolve func(byte) (string, bool)) {
	for _, o := range opts {
		if o.Section != "Service" {
			continue
		}
		switch o.Name {
		case "Environment":
			if strings.TrimSpace(o.Value) == "" {
				set.env = nil
				continue
			}
			for _, kv := range e.assignments(o, from, resolve, systemdsyntax.ValidAssignment) {
				set.env = replaceVar(set.env, kv)
				set.sources[strings.SplitN(kv, "=", 2)[0]] = from + " Environment="
			}
		case "EnvironmentFile":
			set.envFiles = e.appendEnvFile(set.envFiles, o.Value, from, resolve)
		case "UnsetEnvironment":
			if strings.TrimSpace(o.Value) == "" {
				set.unset = nil
				continue
			}
			set.unset = append(set.unset, e.assignments(o, from, resolve, validUnset)...)
		}
	}
}

// validUnset is systemd's test of an UnsetEnvironment= word: a name, or
// an assignment (unset only with that value).
func validUnset(w string) bool {
	return systemdsyntax.ValidName(w) || systemdsyntax.ValidAssignment(w)
}

// assignments parses the words of an Environment=-like option as
// systemd does, recording what it ignores: the rest of the line after
// bad syntax, a word with an unknown specifier or that fails valid.
func (e *ServiceEnv) assignments(o *unit.UnitOption, from string, resolve func(byte) (string, bool), valid func(string) bool) []string {
	words, err := systemdsyntax.UnitWords(o.Value)
	if err != nil {
		e.ignore(from, o, o.Value, "invalid syntax ("+err.Error()+"): systemd ignores the line from there on")
	}
	var out []string
	for _, w := range words {
		expanded, err := systemdsyntax.ExpandSpecifiers(w, resolve)
		switch {
		case err != nil:
			e.ignore(from, o, w, err.Error()+" (write a literal % as %%)")
		case !valid(expanded):
			e.ignore(from, o, w, "not a valid environment assignment (names are letters, digits and _)")
		default:
			out = append(out, expanded)
		}
	}
	return out
}

// ignore records an assignment systemd ignores, its value masked as a
// proxy setting is (a password in a URL).
func (e *ServiceEnv) ignore(from string, o *unit.UnitOption, what, why string) {
	if k, v, ok := strings.Cut(what, "="); ok {
		what = ProxySetting{Name: k, Value: v}.String()
	}
	e.Ignored = append(e.Ignored, fmt.Sprintf("%s %s=%s: %s", from, o.Name, what, why))
}

// replaceVar sets kv in env, in place of an earlier value of its name.
func replaceVar(env []string, kv string) []string {
	prefix := strings.SplitN(kv, "=", 2)[0] + "="
	for i, old := range env {
		if strings.HasPrefix(old, prefix) {
			env[i] = kv
			return env
		}
	}
	return append(env, kv)
}

// appendEnvFile adds an EnvironmentFile= value as systemd does: an empty
// one resets the list; specifiers are expanded in the whole value (no
// quotes are removed); a path that is not absolute, or has a ".."
// component, is ignored.
func (e *ServiceEnv) appendEnvFile(files []envFileRef, value, from string, resolve func(byte) (string, bool)) []envFileRef {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil
	}
	o := &unit.UnitOption{Name: "EnvironmentFile"}
	expanded, err := systemdsyntax.ExpandSpecifiers(value, resolve)
	if err != nil {
		e.ignore(from, o, value, err.Error())
		return files
	}
	p := strings.TrimPrefix(expanded, "-")
	switch {
	case !path.IsAbs(p):
		e.ignore(from, o, value, "not an absolute path")
		return files
	case slices.Contains(strings.Split(p, "/"), ".."):
		e.ignore(from, o, value, "a path with \"..\" (systemd takes only normalized paths)")
		return files
	}
	return append(files, envFileRef{path: path.Clean(p), from: from, optional: p != expanded})
}

// unitResolver resolves the specifiers of a unit's name and fragment
// (%n %N %p %P %i %I %j %J %f %y %Y); the host's (%H, %m, …) stay as
// written.
func unitResolver(unitName, fragment string) func(byte) (string, bool) {
	name, _, _ := strings.Cut(unitName, ".")
	prefix, instance, _ := strings.Cut(name, "@")
	last := prefix[strings.LastIndex(prefix, "-")+1:]
	file := "/" + prefix
	if instance != "" {
		file = "/" + instance
	}
	values := map[byte]string{'n': unitName, 'N': name, 'p': prefix, 'P': prefix, 'i': instance, 'I': instance,
		'j': last, 'J': last, 'f': file, 'y': fragment, 'Y': path.Dir(fragment)}
	return func(c byte) (string, bool) {
		v, ok := values[c]
		return v, ok
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
			if o.Section != "Manager" || o.Name != "DefaultEnvironment" {
				continue
			}
			for _, kv := range e.assignments(o, p, noSpecifiers, systemdsyntax.ValidAssignment) {
				k, v, _ := strings.Cut(kv, "=")
				e.Vars[k] = EnvVar{Value: v, Source: p + " DefaultEnvironment="}
			}
		}
	}
}

// noSpecifiers resolves none: system.conf's DefaultEnvironment= keeps
// "%" as written ("%%" excepted).
func noSpecifiers(byte) (string, bool) { return "", false }

// loadFiles applies one EnvironmentFile=: a path or a glob pattern
// (systemd reads every match, in order); a missing file, or a pattern
// matching none, stops the unit unless the setting starts with "-".
func (e *ServiceEnv) loadFiles(f Files, ef envFileRef) {
	paths, err := globFiles(f, ef.path)
	for _, p := range paths {
		var data []byte
		if data, err = f.Read(p); err != nil {
			break
		}
		for k, v := range systemdsyntax.ParseEnvironmentFile(data) {
			e.Vars[k] = EnvVar{Value: v, Source: p + " (EnvironmentFile= in " + ef.from + ")"}
		}
	}
	if err != nil && (!ef.optional || !errors.Is(err, fs.ErrNotExist)) {
		e.Problems = append(e.Problems, fmt.Sprintf("EnvironmentFile=%s (in %s): %v", ef.path, ef.from, err))
	}
}

// globFiles expands an EnvironmentFile= pattern (glob(3)'s * ? [...] in
// any component) to the matching paths, sorted; a pattern matching nothing
// is fs.ErrNotExist.
func globFiles(f Files, pattern string) ([]string, error) {
	if !strings.ContainsAny(pattern, "*?[") {
		return []string{pattern}, nil
	}
	matches := []string{"/"}
	for _, part := range strings.Split(strings.Trim(pattern, "/"), "/") {
		var next []string
		for _, dir := range matches {
			next = append(next, globDir(f, dir, part)...)
		}
		matches = next
	}
	if len(matches) == 0 {
		return nil, fmt.Errorf("no file matches %s: %w", pattern, fs.ErrNotExist)
	}
	return matches, nil
}

// globDir lists the entries of dir matching one path component (hidden
// ones only for a pattern starting with ".").
func globDir(f Files, dir, part string) []string {
	if !strings.ContainsAny(part, "*?[") {
		if p := path.Join(dir, part); f.Exists(p) {
			return []string{p}
		}
		return nil
	}
	entries, _ := f.ReadDir(dir)
	var out []string
	for _, en := range entries {
		if ok, _ := path.Match(part, en.Name()); ok && (!strings.HasPrefix(en.Name(), ".") || strings.HasPrefix(part, ".")) {
			out = append(out, path.Join(dir, en.Name()))
		}
	}
	slices.Sort(out) // glob(3) sorts; a directory's listing need not be
	return out
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
	opts, err := unit.DeserializeOptions(bytes.NewReader(joinContinuations(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return opts, nil
}

// joinContinuations joins a unit file's continued lines as systemd does
// before go-systemd reads it (go-systemd keeps the backslash and the line
// break in the value, and ends it at a comment line): the backslash at a
// line's end becomes a blank and the next line follows, comment lines
// ("#", ";") inside the continuation skipped.
func joinContinuations(data []byte) []byte {
	var out []byte
	continued := false
	for line := range bytes.Lines(data) {
		line = bytes.TrimRight(line, "\r\n")
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) > 0 && (trimmed[0] == '#' || trimmed[0] == ';') {
			if !continued {
				out = append(append(out, line...), '\n')
			}
			continue
		}
		if continued = bytes.HasSuffix(line, []byte("\\")); continued {
			out = append(append(out, line[:len(line)-1]...), ' ')
			continue
		}
		out = append(append(out, line...), '\n')
	}
	return out
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
