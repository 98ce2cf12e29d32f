package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nodeboot/nodeboot/internal/author/convert"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/fragment"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/node/agent"
)

// errUnexpressible is returned by convert --strict when settings were dropped.
var errUnexpressible = errors.New("some settings cannot be expressed in the target format (see above)")

// fromFormats maps --from to the format a document must be decoded as.
var fromFormats = map[string]string{
	"nodeconfig":   string(userdata.FormatNodeConfig),
	"bootstrap-sh": agent.FormatBootstrapSh,
	"bottlerocket": agent.FormatBottlerocket,
}

// runConvert reads any supported user data and prints it in another format,
// listing on stderr every setting the target cannot express.
func runConvert(inv Invocation, env Env, stdin io.Reader) error {
	data, uri, err := readInput(inv.Args[0], stdin)
	if err != nil {
		return err
	}
	spec, left, err := specFromUserData(uri, data, inv.From, env.Stderr)
	if err != nil {
		return err
	}
	for _, n := range left {
		fmt.Fprintln(env.Stderr, n)
	}
	emit, err := convert.Target(inv.To)
	if err != nil {
		return err
	}
	out, notes, err := emit(spec)
	if err != nil {
		return fmt.Errorf("convert to %s: %w", inv.To, err)
	}
	for _, n := range notes {
		fmt.Fprintf(env.Stderr, "not expressible in %s: %s\n", inv.To, n)
	}
	if _, err := env.Stdout.Write(out); err != nil {
		return err
	}
	if inv.Strict && len(notes) > 0 {
		return errUnexpressible
	}
	return nil
}

func readInput(arg string, stdin io.Reader) ([]byte, string, error) {
	if arg == "-" {
		b, err := io.ReadAll(stdin)
		return b, "stdin", err
	}
	b, err := os.ReadFile(arg)
	if err != nil {
		return nil, "", err
	}
	abs, _ := filepath.Abs(arg)
	return b, "file://" + abs, nil
}

// specFromUserData splits, decodes (reporting every problem) and merges,
// leaving out what discovery will replace (agent.Input.ConversionSpec,
// whose notes it returns).
func specFromUserData(uri string, data []byte, from string, stderr io.Writer) (hub.Spec, []string, error) {
	docs, problems := userdata.Split(diag.Source{URI: uri}, data)
	in := agent.Input{Documents: docs}
	var decoder fragment.Decoder // later documents see earlier patches of bootstrap.sh
	for _, d := range docs {
		frags, p := decoder.Decode(d)
		problems = append(problems, p...)
		for _, f := range frags {
			if want, ok := fromFormats[from]; ok && f.Source.Format != want && string(d.Format) != want {
				problems.Errorf(f.Source, "", diag.Position{}, "read as %s, but --from %s was given", formatOf(f, d), from)
				continue
			}
			in.Fragments = append(in.Fragments, f)
		}
	}
	problems = diag.Relax(problems) // what nodeadm and AL2 boot converts too
	for _, p := range problems {
		fmt.Fprintln(stderr, p.String())
	}
	if problems.HasErrors() {
		return hub.Spec{}, nil, diag.ErrInvalidConfig
	}
	if len(in.Fragments) == 0 {
		return hub.Spec{}, nil, fmt.Errorf("%w in %s (found: %s)", agent.ErrNoConfig, uri, formatsOf(docs))
	}
	return in.ConversionSpec()
}

func formatOf(f agent.Fragment, d userdata.Document) string {
	if f.Source.Format != "" {
		return f.Source.Format
	}
	return string(d.Format)
}

func formatsOf(docs []userdata.Document) string {
	if len(docs) == 0 {
		return "nothing"
	}
	var s []string
	for _, d := range docs {
		s = append(s, string(d.Format))
	}
	return strings.Join(s, ", ")
}
