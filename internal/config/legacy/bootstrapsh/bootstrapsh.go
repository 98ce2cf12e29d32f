package bootstrapsh

import (
	"cmp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/validate"
)

// FormatName is the diag.Source Format of every problem reported here.
const FormatName = "bootstrap.sh"

// Result is what a shell script says through its bootstrap.sh call.
type Result struct {
	// Found is set when the script calls /etc/eks/bootstrap.sh. A script
	// without a call is not bootstrap.sh user data: Found is false and
	// Spec empty (problems may still be returned about mentions of
	// bootstrap.sh that could not be read as a call).
	Found bool
	// Spec is the call's configuration. With errors among the problems it
	// is best effort and must not be applied.
	Spec hub.Spec
	// Positions maps the field paths of Spec that the call sets to where
	// their value stands in the user data.
	Positions diag.Positions
	// Args is the call's argument list after the script path, expanded as
	// bash would (an argument that could not be expanded is kept as
	// written); ParseArgs reads the same list.
	Args []string
	// ExtraArgsPatch is what the script's edit of bootstrap.sh (eksctl's
	// max-pods sed patch) makes bootstrap.sh append to the
	// --kubelet-extra-args of the calls that run after it (set whether or
	// not the script calls bootstrap.sh itself); "" for none.
	ExtraArgsPatch string
}

// ParseArgs converts a bootstrap.sh argument list (without the script
// path) to a hub.Spec, with the exact meaning bootstrap.sh gives every
// option. It is what `nodeboot bootstrap-sh ARGS…` runs. Problems carry
// src and no positions.
func ParseArgs(args []string, src diag.Source) (hub.Spec, diag.List) {
	return ParseArgsEnv(args, nil, src)
}

// ParseArgsEnv is ParseArgs for a command that also has bootstrap.sh's
// environment: environ (KEY=value entries, as os.Environ returns) supplies
// the options that are not given, the way bootstrap.sh falls back to its
// variables (USE_MAX_PODS, KUBELET_EXTRA_ARGS, …).
func ParseArgsEnv(args, environ []string, src diag.Source) (hub.Spec, diag.List) {
	if src.Format == "" {
		src.Format = FormatName
	}
	in := make([]argument, len(args))
	for i, a := range args {
		in[i] = argument{text: a}
	}
	env := map[string]envInput{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = envInput{value: v}
		}
	}
	spec, _, problems := parseInvocation(in, env, src, diag.Position{})
	return spec, problems
}

// parseInvocation reads an argument list and builds the spec, then checks
// its values the way every format's are (validate.Spec).
func parseInvocation(args []argument, env map[string]envInput, src diag.Source, callPos diag.Position) (hub.Spec, diag.Positions, diag.List) {
	r := &argReader{src: src, callPos: callPos}
	b := &specBuilder{argReader: r, inv: r.readArgs(args, env), positions: diag.Positions{}}
	b.build()
	b.validate()
	return b.spec, b.positions, r.problems
}

// validate adds validate.Spec's errors about fields that have no problem
// yet (the checks above already explained the others), each at the
// position of the argument its field came from.
func (b *specBuilder) validate() {
	var fresh field.ErrorList
	for _, e := range validate.Spec(b.spec) {
		if !b.reported(e.Field) {
			fresh = append(fresh, e)
		}
	}
	for _, p := range diag.FromFieldErrors(b.src, fresh, b.positions, diag.SeverityError) {
		p.Position = b.or(p.Position)
		b.problems = append(b.problems, p)
	}
}

// reported reports whether path or one of its ancestors has a problem.
func (b *specBuilder) reported(path string) bool {
	for _, p := range b.problems {
		if p.Field != "" && (path == p.Field || strings.HasPrefix(path, p.Field+".") || strings.HasPrefix(path, p.Field+"[")) {
			return true
		}
	}
	return false
}

// sortByLine orders problems by line, keeping the order of equal lines.
func sortByLine(ps diag.List) {
	slices.SortStableFunc(ps, func(a, b diag.Problem) int {
		return cmp.Compare(a.Position.Line, b.Position.Line)
	})
}
