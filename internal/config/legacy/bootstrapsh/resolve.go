package bootstrapsh

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// bootstrapPath is the script whose calls are read.
const bootstrapPath = "/etc/eks/bootstrap.sh"

// resolution is what a simple command runs once the wrappers in front of
// it (sudo, env, exec, command, nohup, time, nice, bash/sh FILE) are
// removed.
type resolution struct {
	// name is the command that runs; "" when it cannot be known.
	name string
	args []*syntax.Word
	// isCall is set when name is /etc/eks/bootstrap.sh (run or sourced).
	isCall bool
	// exec is set when the command replaces the shell.
	exec bool
	// shellString is set for bash -c, sh -c, su -c, runuser -c.
	shellString bool
	// readsStdin is set for a shell that reads its script from stdin.
	readsStdin bool
	// envReset is set when sudo (without -E), env -i or exec -c cleared
	// the environment; env then holds only what was given after that.
	envReset bool
	env      []envAssign
}

// envAssign is a VAR=value given to env or sudo.
type envAssign struct {
	name  string
	value *syntax.Word
	pos   position
	unset bool
}

// isBootstrapPath reports a path naming /etc/eks/bootstrap.sh.
func isBootstrapPath(p string) bool { return p != "" && path.Clean(p) == bootstrapPath }

// resolve strips the wrappers off a simple command's words.
func (in *interp) resolve(words []*syntax.Word) resolution {
	var res resolution
	for i := 0; i < len(words); {
		name, ok := in.probe(words[i])
		if !ok {
			return res
		}
		var next int
		switch path.Base(name) {
		case "sudo":
			next = in.stripSudo(words, i+1, &res)
		case "env":
			next = in.stripEnv(words, i+1, &res)
		case "exec":
			res.exec = true
			next = in.skipOptions(words, i+1, "a", func(o string) {
				if strings.Contains(o, "c") {
					res.envReset, res.env = true, nil
				}
			})
		case "command":
			if i+1 < len(words) && (in.raw(words[i+1]) == "-v" || in.raw(words[i+1]) == "-V") {
				res.name, res.args = "command", words[i+1:]
				return res
			}
			next = in.skipOptions(words, i+1, "", nil)
		case "nohup", "time":
			next = in.skipOptions(words, i+1, "", nil)
		case "nice":
			next = in.skipOptions(words, i+1, "n", nil)
		case "bash", "sh":
			return in.stripShell(name, words, i+1, res)
		case "su", "runuser":
			res.name, res.args = name, words[i+1:]
			res.shellString = in.hasWord(words[i+1:], "-c")
			return res
		default:
			return in.finishResolution(name, words[i+1:], res)
		}
		i = next
	}
	return res // only wrappers (e.g. exec with redirections)
}

// finishResolution sets the command and recognises bootstrap.sh, run
// directly or with source/.
func (in *interp) finishResolution(name string, args []*syntax.Word, res resolution) resolution {
	res.name, res.args = name, args
	if isBootstrapPath(name) {
		res.isCall = true
		return res
	}
	if (name == "source" || name == ".") && len(args) > 0 {
		if file, ok := in.probe(args[0]); ok && isBootstrapPath(file) {
			res.isCall, res.args = true, args[1:]
		}
	}
	return res
}

// stripShell handles bash/sh [options] [FILE ARGS…].
func (in *interp) stripShell(name string, words []*syntax.Word, i int, res resolution) resolution {
	for ; i < len(words); i++ {
		s := in.raw(words[i])
		if s == "--" {
			i++
			break
		}
		if s == "-o" || s == "+o" {
			i++
			continue
		}
		if len(s) < 2 || (s[0] != '-' && s[0] != '+') {
			break
		}
		if s[0] == '-' && strings.Contains(s, "c") && !strings.HasPrefix(s, "--") {
			res.shellString = true
		}
		if s[0] == '-' && strings.Contains(s, "s") && !strings.HasPrefix(s, "--") {
			res.readsStdin = true
		}
	}
	if res.shellString || res.readsStdin || i >= len(words) {
		res.name, res.args = path.Base(name), words[min(i, len(words)):]
		res.readsStdin = res.readsStdin || i >= len(words)
		return res
	}
	file, ok := in.probe(words[i])
	if !ok {
		return res
	}
	return in.finishResolution(file, words[i+1:], res)
}

// stripSudo passes sudo's options and VAR=value words. Without -E sudo
// starts the command with a fresh environment.
func (in *interp) stripSudo(words []*syntax.Word, i int, res *resolution) int {
	keep := false
	i = in.skipOptions(words, i, "ugCprtUDT", func(o string) {
		if strings.HasPrefix(o, "--preserve-env") || (!strings.HasPrefix(o, "--") && strings.Contains(o, "E")) {
			keep = true
		}
	})
	if !keep {
		res.envReset, res.env = true, nil
	}
	return in.takeEnvAssignments(words, i, res)
}

// stripEnv passes env's options and VAR=value words.
func (in *interp) stripEnv(words []*syntax.Word, i int, res *resolution) int {
	for ; i < len(words); i++ {
		s := in.raw(words[i])
		switch {
		case s == "-i" || s == "-" || s == "--ignore-environment":
			res.envReset, res.env = true, nil
		case s == "-u" && i+1 < len(words):
			i++
			res.env = append(res.env, envAssign{name: in.raw(words[i]), unset: true, pos: posOf(words[i].Pos())})
		case strings.HasPrefix(s, "--unset="):
			res.env = append(res.env, envAssign{name: strings.TrimPrefix(s, "--unset="), unset: true, pos: posOf(words[i].Pos())})
		case s == "--":
			return in.takeEnvAssignments(words, i+1, res)
		case strings.HasPrefix(s, "-") && len(s) > 1:
		default:
			return in.takeEnvAssignments(words, i, res)
		}
	}
	return i
}

func (in *interp) takeEnvAssignments(words []*syntax.Word, i int, res *resolution) int {
	for ; i < len(words); i++ {
		a, ok := assignmentSplit(words[i])
		if !ok {
			break
		}
		res.env = append(res.env, envAssign{name: a.name, value: a.value, pos: a.pos})
	}
	return i
}

// skipOptions passes option words ("-x", "--long"); letters in withArg
// take the next word as their argument. "--" ends the options.
func (in *interp) skipOptions(words []*syntax.Word, i int, withArg string, seen func(string)) int {
	for i < len(words) {
		s := in.raw(words[i])
		if s == "--" {
			return i + 1
		}
		if len(s) < 2 || s[0] != '-' {
			return i
		}
		if seen != nil {
			seen(s)
		}
		i++
		if !strings.HasPrefix(s, "--") && len(s) == 2 && strings.IndexByte(withArg, s[1]) >= 0 {
			i++
		}
	}
	return i
}

func (in *interp) hasWord(words []*syntax.Word, s string) bool {
	for _, w := range words {
		if in.raw(w) == s {
			return true
		}
	}
	return false
}
