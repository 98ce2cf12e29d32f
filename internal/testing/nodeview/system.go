package nodeview

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// ContainerdConfig is where containerd reads its configuration.
const ContainerdConfig = "/etc/containerd/config.toml"

// containerd reads config.toml as containerd does, with the files its
// imports name (their tables replace the importing file's, as containerd
// 1.x and 2.x merge imports), and the base runtime spec its runtimes name.
func (r *reader) containerd() error {
	data, ok, err := r.read(ContainerdConfig)
	if err != nil || !ok {
		return err
	}
	config, err := decodeTOML(data)
	if err != nil {
		return fmt.Errorf("%s: %w", ContainerdConfig, err)
	}
	imports, _ := config["imports"].([]any)
	delete(config, "imports")
	for _, imp := range imports {
		pattern, _ := imp.(string)
		matches, _ := filepath.Glob(filepath.Join(r.root, pattern))
		sort.Strings(matches)
		for _, m := range matches {
			data, _, err := r.read("/" + strings.TrimPrefix(filepath.ToSlash(strings.TrimPrefix(m, r.root)), "/"))
			if err != nil {
				return err
			}
			part, err := decodeTOML(data)
			if err != nil {
				return fmt.Errorf("containerd import %s: %w", m, err)
			}
			config = mergeImport(config, part)
		}
	}
	if len(imports) > 0 {
		r.view["containerd.imports"] = canonical(imports)
	}
	r.put("containerd", config)
	normalizeImageRefs(r.view)
	return r.runtimeSpecs(config)
}

// mergeImport merges an imported containerd file: plugin sections merge
// per plugin (the imported plugin's table replaces the importing one's),
// other top-level tables merge key by key.
func mergeImport(base, imp map[string]any) map[string]any {
	for k, v := range imp {
		if k == "plugins" {
			plugins, _ := base["plugins"].(map[string]any)
			if plugins == nil {
				plugins = map[string]any{}
			}
			for name, p := range v.(map[string]any) {
				plugins[name] = p
			}
			base["plugins"] = plugins
			continue
		}
		base[k] = MergePatch(base[k], v)
	}
	return base
}

// runtimeSpecs reads every base_runtime_spec file a runtime names.
func (r *reader) runtimeSpecs(config map[string]any) error {
	var specs []string
	var walk func(v any)
	walk = func(v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k, c := range m {
			if s, ok := c.(string); ok && k == "base_runtime_spec" && s != "" {
				specs = append(specs, s)
			}
			walk(c)
		}
	}
	walk(config)
	sort.Strings(specs)
	for _, p := range specs {
		data, ok, err := r.read(p)
		if err != nil {
			return err
		}
		if !ok {
			r.view["runtimespec:"+p] = `"(missing file)"`
			continue
		}
		doc, err := decodeJSONOrYAML(data)
		if err != nil {
			return fmt.Errorf("base runtime spec %s: %w", p, err)
		}
		r.put("runtimespec:"+p, doc)
	}
	return nil
}

// systemdEnv reads the environment systemd gives services: the manager's
// DefaultEnvironment= drop-ins and every unit's Environment= drop-ins.
func (r *reader) systemdEnv() error {
	defaults, _ := filepath.Glob(filepath.Join(r.root, "etc/systemd/system.conf.d/*.conf"))
	units, _ := filepath.Glob(filepath.Join(r.root, "etc/systemd/system/*.service.d/*.conf"))
	for _, f := range append(defaults, units...) {
		rel := "/" + filepath.ToSlash(strings.TrimPrefix(f, r.root+"/"))
		data, _, err := r.read(rel)
		if err != nil {
			return err
		}
		scope := "default"
		if dir := path.Base(path.Dir(rel)); strings.HasSuffix(dir, ".service.d") {
			scope = strings.TrimSuffix(dir, ".d")
		}
		for _, kv := range parseUnitAssignments(data) {
			r.view[fmt.Sprintf("systemd.%s.%s[%s]", scope, kv.key, kv.name)] = canonical(kv.value)
		}
	}
	return nil
}

type assignment struct{ key, name, value string }

// parseUnitAssignments reads Environment= and DefaultEnvironment= lines:
// each holds space-separated, optionally double-quoted NAME=VALUE words.
// Other directives are kept as key=whole value.
func parseUnitAssignments(data string) []assignment {
	var out []assignment
	for _, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' || line[0] == '[' {
			continue
		}
		key, rest, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		if key != "Environment" && key != "DefaultEnvironment" {
			out = append(out, assignment{key: key, name: "", value: rest})
			continue
		}
		for _, word := range unitWords(rest) {
			name, value, _ := strings.Cut(word, "=")
			out = append(out, assignment{key: "env", name: name, value: value})
		}
	}
	return out
}

// unitWords splits a unit file value into words, honouring double and
// single quotes and C-style backslash escapes (systemd.syntax(7)).
func unitWords(s string) []string {
	var words []string
	var b strings.Builder
	var quote byte
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == 0 && (c == ' ' || c == '\t'):
			if inWord {
				words = append(words, b.String())
				b.Reset()
				inWord = false
			}
		case quote == 0 && (c == '"' || c == '\''):
			quote, inWord = c, true
		case quote != 0 && c == quote:
			quote = 0
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(unescape(s[i]))
			inWord = true
		default:
			b.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, b.String())
	}
	return words
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	}
	return c
}

// resolved reads systemd-resolved drop-ins.
func (r *reader) resolved() error {
	files, _ := filepath.Glob(filepath.Join(r.root, "run/systemd/resolved.conf.d/*.conf"))
	etc, _ := filepath.Glob(filepath.Join(r.root, "etc/systemd/resolved.conf.d/*.conf"))
	for _, f := range append(files, etc...) {
		rel := "/" + filepath.ToSlash(strings.TrimPrefix(f, r.root+"/"))
		data, _, err := r.read(rel)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(data, "\n") {
			line = strings.TrimSpace(line)
			if k, v, ok := strings.Cut(line, "="); ok && line[0] != '#' {
				r.view["resolved."+k] = canonical(strings.Fields(v))
			}
		}
	}
	return nil
}

// hosts records the lines an agent added to /etc/hosts (as a set).
func (r *reader) hosts() error {
	data, ok, err := r.read("/etc/hosts")
	if err != nil || !ok {
		return err
	}
	base := map[string]bool{}
	for _, l := range strings.Split(r.opts.Baseline["/etc/hosts"], "\n") {
		base[strings.Join(strings.Fields(l), " ")] = true
	}
	var added []string
	for _, l := range strings.Split(data, "\n") {
		l = strings.Join(strings.Fields(l), " ")
		if l != "" && !strings.HasPrefix(l, "#") && !base[l] {
			added = append(added, l)
		}
	}
	if len(added) > 0 {
		sort.Strings(added)
		r.view["hosts.added"] = canonical(added)
	}
	return nil
}

// networkd reads systemd-networkd's files (.network, .link, .netdev and
// their drop-ins) as networkd does: by section and key, comments and
// blank lines aside; a key set in a repeated section keeps every value.
func (r *reader) networkd() error {
	var files []string
	for _, dir := range []string{"run/systemd/network", "etc/systemd/network"} {
		for _, pattern := range []string{"*.network", "*.link", "*.netdev", "*.d/*.conf"} {
			m, _ := filepath.Glob(filepath.Join(r.root, dir, pattern))
			files = append(files, m...)
		}
	}
	for _, f := range files {
		rel := "/" + filepath.ToSlash(strings.TrimPrefix(f, r.root+"/"))
		data, _, err := r.read(rel)
		if err != nil {
			return err
		}
		values := map[string][]string{}
		section := ""
		for _, line := range strings.Split(data, "\n") {
			line = strings.TrimSpace(line)
			switch {
			case line == "" || line[0] == '#' || line[0] == ';':
			case line[0] == '[':
				section = strings.Trim(line, "[]")
			default:
				k, v, _ := strings.Cut(line, "=")
				key := section + "." + strings.TrimSpace(k)
				values[key] = append(values[key], strings.TrimSpace(v))
			}
		}
		for k, v := range values {
			r.view["networkd:"+rel+"."+k] = canonical(v)
		}
		if len(values) == 0 {
			r.view["networkd:"+rel] = `"(empty)"`
		}
	}
	return nil
}

// normalizeImageRefs writes the sandbox image references containerd reads
// as it resolves them: a reference without tag or digest means :latest.
func normalizeImageRefs(view View) {
	for k, v := range view {
		if !strings.HasSuffix(k, ".sandbox_image") && !strings.HasSuffix(k, ".pinned_images.sandbox") {
			continue
		}
		var ref string
		if json.Unmarshal([]byte(v), &ref) != nil || strings.Contains(ref, "@") {
			continue
		}
		if last := ref[strings.LastIndex(ref, "/")+1:]; !strings.Contains(last, ":") {
			view[k] = canonical(ref + ":latest")
		}
	}
}
