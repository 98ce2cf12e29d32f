package kubelet

import (
	"strconv"
	"strings"

	clientcmdv1 "github.com/nodeboot/nodeboot/internal/k8sapi/clientcmd/v1"
)

// encodeKubeconfig writes the kubeconfig as YAML. It emits only the fields
// renderKubeconfig sets, in a fixed order, quoting a value only when a plain
// YAML scalar could be misread. It is ~50x faster than a generic YAML
// encoder; a test decodes its output strictly and compares it field by field.
func encodeKubeconfig(c clientcmdv1.Config) []byte {
	var w yamlWriter
	w.field(0, "apiVersion", c.APIVersion)
	w.field(0, "kind", c.Kind)
	w.key(0, "clusters")
	for _, nc := range c.Clusters {
		w.item(0, "name", nc.Name)
		w.key(1, "cluster")
		w.optionalField(2, "certificate-authority", nc.Cluster.CertificateAuthority)
		w.field(2, "server", nc.Cluster.Server)
	}
	w.key(0, "contexts")
	for _, nc := range c.Contexts {
		w.item(0, "name", nc.Name)
		w.key(1, "context")
		w.field(2, "cluster", nc.Context.Cluster)
		w.field(2, "user", nc.Context.AuthInfo)
	}
	w.field(0, "current-context", c.CurrentContext)
	w.key(0, "users")
	for _, nu := range c.AuthInfos {
		w.item(0, "name", nu.Name)
		w.key(1, "user")
		w.optionalField(2, "token", nu.AuthInfo.Token)
		if nu.AuthInfo.Exec != nil {
			w.exec(3, nu.AuthInfo.Exec)
		}
	}
	return []byte(w.b.String())
}

// yamlWriter emits block-style YAML; level n is indented 2n spaces.
type yamlWriter struct{ b strings.Builder }

func (w *yamlWriter) indent(level int) {
	for range level {
		w.b.WriteString("  ")
	}
}

func (w *yamlWriter) key(level int, key string) {
	w.indent(level)
	w.b.WriteString(key + ":\n")
}

func (w *yamlWriter) field(level int, key, value string) {
	w.indent(level)
	w.b.WriteString(key + ": " + yamlScalar(value) + "\n")
}

func (w *yamlWriter) optionalField(level int, key, value string) {
	if value != "" {
		w.field(level, key, value)
	}
}

// item starts a sequence entry at level whose first field is key: value.
func (w *yamlWriter) item(level int, key, value string) {
	w.indent(level)
	w.b.WriteString("- " + key + ": " + yamlScalar(value) + "\n")
}

func (w *yamlWriter) exec(level int, e *clientcmdv1.ExecConfig) {
	w.key(level-1, "exec")
	w.field(level, "apiVersion", e.APIVersion)
	w.field(level, "command", e.Command)
	if len(e.Args) > 0 {
		w.key(level, "args")
		for _, a := range e.Args {
			w.indent(level)
			w.b.WriteString("- " + yamlScalar(a) + "\n")
		}
	}
	if len(e.Env) > 0 {
		w.key(level, "env")
		for _, v := range e.Env {
			w.item(level, "name", v.Name)
			w.field(level+1, "value", v.Value)
		}
	}
	w.optionalField(level, "interactiveMode", string(e.InteractiveMode))
}

// yamlScalar returns s as a plain scalar when that is unambiguous, else as
// a double-quoted scalar. Go's quoting escapes every character YAML treats
// as non-printable, and each escape it uses (\n, \t, \xXX, \uXXXX, …) means
// the same in YAML for valid UTF-8, which is why invalid bytes are replaced
// first (they cannot appear in YAML at all).
func yamlScalar(s string) string {
	if plainSafe(s) {
		return s
	}
	return strconv.Quote(strings.ToValidUTF8(s, "\uFFFD"))
}

// yamlKeywords resolve to booleans or null in YAML 1.1 or 1.2.
var yamlKeywords = map[string]bool{
	"y": true, "n": true, "yes": true, "no": true, "on": true, "off": true,
	"true": true, "false": true, "null": true,
}

// plainSafe is deliberately conservative: it starts with a letter, '/' or
// '_' (or '-' then a letter or '-', for flags), which rules out numbers,
// dates, .inf/.nan and indicators; it holds only URL-ish characters; and it
// does not end in ':'.
func plainSafe(s string) bool {
	if s == "" || yamlKeywords[strings.ToLower(s)] || s[len(s)-1] == ':' {
		return false
	}
	switch c := s[0]; {
	case isASCIILetter(c) || c == '/' || c == '_':
	case c == '-' && len(s) > 1 && (isASCIILetter(s[1]) || s[1] == '-'):
	default:
		return false
	}
	for i := range len(s) {
		c := s[i]
		if !isASCIILetter(c) && (c < '0' || c > '9') && !strings.ContainsRune("._/:@=,+-", rune(c)) {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
