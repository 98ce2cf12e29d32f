package kubeletflag

import (
	"fmt"
	"strings"
)

// Flag is one flag as the kubelet's parser reads it.
type Flag struct {
	// Name is the normalised name, without dashes: "max-pods".
	Name string
	// Value is the flag's value; "" for a bare boolean flag.
	Value string
	// HasValue is false for a boolean flag given without a value.
	HasValue bool
	// Arg is the index of the word the flag starts at.
	Arg int
}

// String renders f as one word, --name=value (or --name).
func (f Flag) String() string {
	if f.HasValue {
		return "--" + f.Name + "=" + f.Value
	}
	return "--" + f.Name
}

// Problem is a word the kubelet refuses to start with.
type Problem struct {
	// Arg is the index of the word.
	Arg int
	// Message says why, in terms of what the user wrote.
	Message string
}

func (p Problem) String() string { return p.Message }

// Normalize returns a flag name as the kubelet looks it up: underscores
// are dashes (the kubelet's word-separator normalisation).
func Normalize(name string) string { return strings.ReplaceAll(name, "_", "-") }

// Parse reads args as the kubelet's flag parser does (see the package
// documentation) and returns the flags in order with the words it refuses.
func Parse(args []string) ([]Flag, []Problem) {
	var (
		flags    []Flag
		problems []Problem
	)
	for i := 0; i < len(args); i++ {
		f, next, p := parseAt(args, i)
		if p != nil {
			problems = append(problems, explainStray(*p, flags, args))
		}
		if f.Name != "" {
			flags = append(flags, f)
		}
		i = next
	}
	return flags, problems
}

// parseAt reads the word at args[i] and returns the flag it starts (Name
// empty when none), the index of the last word used, and its problem.
func parseAt(args []string, i int) (Flag, int, *Problem) {
	w := args[i]
	switch {
	case w == "--":
		return Flag{}, len(args) - 1, endOfFlags(args, i)
	case strings.HasPrefix(w, "--"):
		return parseLong(args, i)
	case strings.HasPrefix(w, "-") && len(w) > 1:
		return parseShort(args, i)
	}
	return Flag{}, i, &Problem{Arg: i, Message: fmt.Sprintf("stray argument %q: the kubelet takes no arguments besides flags and refuses to start (a value split from its flag, or a misplaced quote?)", w)}
}

// explainStray rewrites the problem of a stray true or false right after
// a boolean flag: the user meant --name=value.
func explainStray(p Problem, flags []Flag, args []string) Problem {
	w := args[p.Arg]
	if (w != "true" && w != "false") || len(flags) == 0 {
		return p
	}
	last := flags[len(flags)-1]
	if last.Arg != p.Arg-1 || last.HasValue || !IsBool(last.Name) {
		return p
	}
	p.Message = fmt.Sprintf("--%s is a boolean flag: write --%s=%s (the kubelet would take %s as a stray argument and refuse to start)", last.Name, last.Name, w, w)
	return p
}

// endOfFlags reports the words after "--", which the kubelet refuses.
func endOfFlags(args []string, i int) *Problem {
	if i+1 >= len(args) {
		return nil
	}
	return &Problem{Arg: i + 1, Message: fmt.Sprintf("-- ends the kubelet's flags, and the kubelet refuses %q after it", args[i+1])}
}

// parseLong reads --name=value, --name value or --name.
func parseLong(args []string, i int) (Flag, int, *Problem) {
	name, value, hasValue := strings.Cut(args[i][2:], "=")
	if name == "" || strings.HasPrefix(name, "-") {
		return Flag{}, i, &Problem{Arg: i, Message: fmt.Sprintf("%q is not a flag: write --name=value", args[i])}
	}
	f := Flag{Name: Normalize(name), Value: value, HasValue: hasValue, Arg: i}
	switch {
	case hasValue || IsBool(f.Name):
		return f, i, nil
	case i+1 < len(args):
		f.Value, f.HasValue = args[i+1], true
		return f, i + 1, nil
	}
	return f, i, &Problem{Arg: i, Message: fmt.Sprintf("--%s needs a value (--%s=…)", name, name)}
}

// parseShort reads the kubelet's only short flags: -v N, -v=N, -vN and -h.
func parseShort(args []string, i int) (Flag, int, *Problem) {
	w := args[i]
	switch {
	case w == "-h":
		return Flag{Name: "help", Arg: i}, i, nil
	case w == "-v" && i+1 < len(args):
		return Flag{Name: "v", Value: args[i+1], HasValue: true, Arg: i}, i + 1, nil
	case w == "-v":
		return Flag{}, i, &Problem{Arg: i, Message: "-v needs a value (-v=2)"}
	case strings.HasPrefix(w, "-v"):
		return Flag{Name: "v", Value: strings.TrimPrefix(w[2:], "="), HasValue: true, Arg: i}, i, nil
	}
	return Flag{}, i, &Problem{Arg: i, Message: fmt.Sprintf("the kubelet has no short flag %q (only -v and -h); write --name=value", w)}
}

// Split reads one word that is one whole flag: --name=value, a boolean
// --name, or -v=N. ok is false for anything else, including "--name" of a
// flag that needs a value (its value would be the next word).
func Split(word string) (f Flag, ok bool) {
	flags, problems := Parse([]string{word})
	if len(problems) > 0 || len(flags) != 1 || (!flags[0].HasValue && !IsBool(flags[0].Name)) {
		return Flag{}, false
	}
	return flags[0], true
}

// Value returns the value the kubelet ends up with for a flag that keeps
// its last value (not a map or list flag: see Accumulates), and whether
// args set it. Words the kubelet would refuse are skipped.
func Value(args []string, name string) (string, bool) {
	flags, _ := Parse(args)
	return Last(flags, name)
}

// Last returns the value of the last flag named name (normalised).
func Last(flags []Flag, name string) (string, bool) {
	name = Normalize(name)
	for i := len(flags) - 1; i >= 0; i-- {
		if flags[i].Name == name {
			return flags[i].Value, true
		}
	}
	return "", false
}

// Values returns the value of every flag named name (normalised), in order.
func Values(flags []Flag, name string) []string {
	name = Normalize(name)
	var out []string
	for _, f := range flags {
		if f.Name == name && f.HasValue {
			out = append(out, f.Value)
		}
	}
	return out
}
