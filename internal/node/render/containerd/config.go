package containerd

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"sync"
	"text/template"

	"github.com/nodeboot/nodeboot/internal/config/merge"
)

//go:embed templates/config-v2.toml.tmpl templates/config-v3.toml.tmpl
var configTemplateFiles embed.FS

// configTemplates holds one template per schema, parsed on first use (a boot
// renders one schema; nothing is parsed at package initialisation). Parsing
// embedded, constant text cannot fail at run time, so a failure is a build
// defect.
var configTemplates = map[Schema]func() *template.Template{
	SchemaV2: sync.OnceValue(func() *template.Template { return mustParseTemplate("templates/config-v2.toml.tmpl") }),
	SchemaV3: sync.OnceValue(func() *template.Template { return mustParseTemplate("templates/config-v3.toml.tmpl") }),
}

func mustParseTemplate(name string) *template.Template {
	return template.Must(template.New(name[strings.LastIndex(name, "/")+1:]).
		Funcs(template.FuncMap{"quote": quoteTOML}).
		Option("missingkey=error").
		ParseFS(configTemplateFiles, name))
}

// templateValues are the variables of both config templates.
type templateValues struct {
	Imports         string
	Socket          string
	SandboxImage    string
	EnableCDI       bool
	RuntimeName     string
	RuntimeBinary   string
	BaseRuntimeSpec string
	SOCI            bool
	SOCISocket      string
	SOCIRoot        string
}

// renderConfig executes the schema's template, then lays the user's TOML
// over it. Without user TOML the template output is returned as is.
func renderConfig(schema Schema, values templateValues, userConfig string) ([]byte, error) {
	var buf bytes.Buffer
	if err := configTemplates[schema]().Execute(&buf, values); err != nil {
		return nil, fmt.Errorf("execute config template v%d: %w", schema, err)
	}
	if strings.TrimSpace(userConfig) == "" {
		return buf.Bytes(), nil
	}
	merged, err := merge.TOML(buf.Bytes(), []byte(userConfig))
	if err != nil {
		return nil, fmt.Errorf("merge containerd.config over the v%d template: %w", schema, err)
	}
	return merged, nil
}

// quoteTOML writes s as a TOML basic string.
func quoteTOML(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
