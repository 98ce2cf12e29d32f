package bootstrapsh

import (
	"fmt"
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
	"github.com/nodeboot/nodeboot/internal/config/validate/suggest"
)

// setting is the value of one option.
type setting struct {
	value string
	pos   diag.Position
	// unknown is set when the value could not be worked out (reported).
	unknown bool
	// envVar names the exported variable the value came from; "" when
	// it was given as a flag.
	envVar string
}

// label names the setting's origin for messages.
func (s setting) label(flag string) string {
	if s.envVar != "" {
		return fmt.Sprintf("%s (from the exported variable %s)", flag, s.envVar)
	}
	return flag
}

// invocation is a bootstrap.sh command line read as bootstrap.sh reads it.
type invocation struct {
	clusterName setting
	hasName     bool
	options     map[string]setting
}

// argReader reads bootstrap.sh arguments, collecting problems.
type argReader struct {
	src      diag.Source
	callPos  diag.Position
	problems diag.List
}

func (r *argReader) errorf(pos diag.Position, field, format string, args ...any) {
	r.problems.Errorf(r.src, field, r.or(pos), format, args...)
}

func (r *argReader) warnf(pos diag.Position, field, format string, args ...any) {
	r.problems.Warnf(r.src, field, r.or(pos), format, args...)
}

// or falls back to the call's position for problems without their own.
func (r *argReader) or(pos diag.Position) diag.Position {
	if pos.IsZero() {
		return r.callPos
	}
	return pos
}

// readArgs parses the command line the way bootstrap.sh's option loop
// does (legacy-formats.md §A.1), then takes absent options from the
// exported variables bootstrap.sh would read.
func (r *argReader) readArgs(args []argument, env map[string]envInput) invocation {
	inv := invocation{options: map[string]setting{}}
	var positional []argument
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.unknown:
			positional = append(positional, a)
		case a.text == "-h" || a.text == "--help":
			r.errorf(a.pos, "", "%s makes bootstrap.sh print its help and exit 1 without configuring anything; remove it", a.text)
		case strings.HasPrefix(a.text, "--") && strings.Contains(a.text, "="):
			r.readJoined(&inv, a)
		case strings.HasPrefix(a.text, "-") && len(a.text) > 1:
			i = r.readOption(&inv, args, i)
		default:
			positional = append(positional, a)
		}
	}
	r.readPositional(&inv, positional)
	r.readEnvironment(&inv, env)
	return inv
}

// readJoined reads --flag=value, which bootstrap.sh itself does not
// recognise (it takes the whole word as a positional argument).
func (r *argReader) readJoined(inv *invocation, a argument) {
	name, value, _ := strings.Cut(a.text, "=")
	if !isBootstrapFlag(name) {
		r.unknownOption(name, a.pos)
		return
	}
	shown := shellQuote(value)
	if isSecretOption(name) {
		shown = "VALUE"
	}
	r.warnf(a.pos, "", "bootstrap.sh does not understand %s=value (it would take the whole word as the cluster name); nodeboot reads it as %s %s, but write the value as a separate argument to stay compatible", name, name, shown)
	r.set(inv, name, setting{value: value, pos: a.pos})
}

// readOption reads "--flag value" at args[i] and returns the index of the
// last argument it used.
func (r *argReader) readOption(inv *invocation, args []argument, i int) int {
	a := args[i]
	if !isBootstrapFlag(a.text) {
		r.unknownOption(a.text, a.pos)
		if i+1 < len(args) && !strings.HasPrefix(args[i+1].text, "-") && !args[i+1].unknown {
			return i + 1 // bootstrap.sh options all take a value: skip the presumed one
		}
		return i
	}
	if i+1 >= len(args) {
		r.errorf(a.pos, "", "%s needs a value, but it is the last argument (bootstrap.sh fails with \"unbound variable\")", a.text)
		return i
	}
	v := args[i+1]
	if !v.unknown && looksLikeBootstrapFlag(v.text) {
		r.errorf(v.pos, "", "%s is followed by the option %s instead of a value; an unquoted variable that is empty vanishes from the command line: quote it (\"$VAR\") or give the value", a.text, v.text)
		return i
	}
	r.set(inv, a.text, setting{value: v.text, pos: v.pos, unknown: v.unknown})
	return i + 1
}

// set records an option; as in bootstrap.sh the last occurrence wins.
func (r *argReader) set(inv *invocation, flag string, s setting) {
	if old, ok := inv.options[flag]; ok {
		where := ""
		if old.pos.Line > 0 {
			where = fmt.Sprintf(" (first on line %d)", old.pos.Line)
		}
		r.warnf(s.pos, "", "%s is given more than once%s; the last value wins, as in bootstrap.sh", flag, where)
	}
	inv.options[flag] = s
}

// unknownOption reports an option bootstrap.sh never had.
func (r *argReader) unknownOption(name string, pos diag.Position) {
	switch {
	case kubeletflag.IsKnown(strings.TrimLeft(name, "-")):
		r.errorf(pos, "", "%s is not a bootstrap.sh option but a kubelet flag: pass it inside %s '%s=…'", name, flagKubeletExtraArgs, name)
	default:
		msg := fmt.Sprintf("unknown bootstrap.sh option %s", name)
		if s := suggest.Closest(name, bootstrapFlagNames()); s != "" {
			msg += fmt.Sprintf("; did you mean %s?", s)
		}
		r.errorf(pos, "", "%s (bootstrap.sh would silently take it as the cluster name or ignore it)", msg)
	}
}

// readPositional takes the first positional argument as the cluster name.
func (r *argReader) readPositional(inv *invocation, positional []argument) {
	if len(positional) == 0 {
		r.errorf(diag.Position{}, pathClusterName, "cluster name is not defined: give it as the first argument that is not an option, e.g. /etc/eks/bootstrap.sh my-cluster (bootstrap.sh exits 1 without it)")
		return
	}
	first := positional[0]
	if !first.unknown && first.text == "" {
		r.errorf(first.pos, pathClusterName, "cluster name is empty (bootstrap.sh exits 1: cluster name is not defined)")
	}
	inv.clusterName, inv.hasName = setting{value: first.text, pos: first.pos, unknown: first.unknown}, true
	for _, extra := range positional[1:] {
		if !extra.unknown {
			r.warnf(extra.pos, "", "extra argument %s is ignored: bootstrap.sh uses only the first argument that is not an option, the cluster name (%s)", shellQuote(extra.text), shellQuote(first.text))
		}
	}
}

// readEnvironment fills absent options from the variables bootstrap.sh
// would read from its environment.
func (r *argReader) readEnvironment(inv *invocation, env map[string]envInput) {
	for _, o := range bootstrapOptions {
		e, ok := env[o.envVar]
		if _, given := inv.options[o.flag]; given || !ok || (e.value == "" && e.unknown == "") {
			continue
		}
		if e.unknown != "" {
			why := e.unknown
			if isSecretOption(o.flag) {
				why = "it is not a plain value (not shown: it may hold credentials)"
			}
			r.errorf(e.pos, "", "%s is not given, so bootstrap.sh would read the exported variable %s, whose value nodeboot cannot know: %s", o.flag, o.envVar, why)
			inv.options[o.flag] = setting{pos: e.pos, unknown: true, envVar: o.envVar}
			continue
		}
		inv.options[o.flag] = setting{value: e.value, pos: e.pos, envVar: o.envVar}
	}
	if e, ok := env[envPauseContainerImage]; ok && (e.value != "" || e.unknown != "") {
		r.warnf(e.pos, "", "the exported variable %s is ignored: nodeboot takes the sandbox (pause) image from the node", envPauseContainerImage)
	}
}
