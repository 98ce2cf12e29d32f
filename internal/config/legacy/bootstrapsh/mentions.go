package bootstrapsh

import (
	"maps"
	"path"
	"strings"

	"github.com/nodeboot/nodeboot/internal/lazyregexp"
)

// al2Files are AL2 files that nodeboot neither reads nor writes: scripts
// that edit them after bootstrap.sh silently stop working.
var al2Files = []string{
	"/etc/kubernetes/kubelet/kubelet-config.json",
	"/etc/eks/containerd/containerd-config.toml",
}

// readers are commands that only look at /etc/eks/bootstrap.sh.
var readers = map[string]bool{
	"cat": true, "ls": true, "test": true, "[": true, "grep": true, "egrep": true, "fgrep": true,
	"stat": true, "file": true, "echo": true, "printf": true, "diff": true, "md5sum": true,
	"sha1sum": true, "sha256sum": true, "head": true, "tail": true, "less": true, "more": true,
	"wc": true, "chmod": true, "chown": true, "which": true, "type": true, "readlink": true,
	"realpath": true, "basename": true, "dirname": true, "logger": true, "command": true,
	"cp": true, "mv": true, "install": true, "ln": true, // when bootstrap.sh is not the destination
}

// maxPodsPatch finds eksctl's sed patch value: `… --max-pods=N"…`.
var maxPodsPatch = lazyregexp.New(`--max-pods=([0-9]+)`)

func rawWords(words []word) string {
	raws := make([]string, len(words))
	for i, w := range words {
		raws[i] = w.raw
	}
	return strings.Join(raws, " ")
}

// checkMentions reports commands other than the call that involve
// /etc/eks/bootstrap.sh or the AL2 kubelet and containerd files.
func (in *interp) checkMentions(cmd *simpleCommand, res resolution) {
	raw := rawWords(cmd.args)
	for _, f := range al2Files {
		if strings.Contains(raw, f) {
			in.warnf(cmd.pos, "this line uses %s, an AL2 file that nodeboot neither reads nor writes, so it has no effect; set kubelet.config or containerd.config in a NodeConfig instead", f)
		}
	}
	if res.name != "" && path.Base(res.name) == "bootstrap.sh" && !isBootstrapPath(res.name) {
		in.warnf(cmd.pos, "this line runs %q; nodeboot only reads calls of %s by that exact path", res.name, bootstrapPath)
		return
	}
	if !strings.Contains(raw, bootstrapPath) {
		return
	}
	base := path.Base(res.name)
	switch {
	case res.shellString || base == "eval":
		in.errorf(cmd.pos, "a bootstrap.sh call inside a string run by `%s` is not supported: nodeboot never runs nested scripts; call %s directly on its own line", base, bootstrapPath)
	case editsBootstrap(base, cmd.args):
		in.warnEdit(cmd.pos, raw)
	case readers[base]:
	case res.name == "":
		in.warnf(cmd.pos, "this line mentions %s in a command nodeboot cannot work out; if it runs bootstrap.sh, call it directly", bootstrapPath)
	default:
		in.warnf(cmd.pos, "this line passes %s to `%s`, which nodeboot does not understand; if it runs the script, call it directly (sudo, exec, env, nohup, bash or sh in front are fine)", bootstrapPath, base)
	}
}

// editsBootstrap reports commands that change /etc/eks/bootstrap.sh.
func editsBootstrap(base string, args []word) bool {
	switch base {
	case "sed", "perl":
		for _, w := range args[1:] {
			if strings.HasPrefix(w.raw, "-i") || strings.HasPrefix(w.raw, "--in-place") || (strings.HasPrefix(w.raw, "-") && !strings.HasPrefix(w.raw, "--") && strings.Contains(w.raw, "i")) {
				return true
			}
		}
	case "cp", "mv", "install", "ln":
		return len(args) > 0 && isBootstrapPath(args[len(args)-1].raw) // the destination
	case "tee", "rm", "truncate", "curl", "wget", "dd":
		return true
	}
	return false
}

func (in *interp) warnEdit(pos position, raw string) {
	msg := "this line changes " + bootstrapPath + ", which nodeboot never runs, so the change has no effect"
	if m := maxPodsPatch.FindStringSubmatch(raw); m != nil {
		msg += "; the max pods value " + m[1] + " it adds is not applied: set kubelet.config.maxPods in a NodeConfig instead"
	}
	in.warnf(pos, "%s", msg)
}

// checkRedirects reports here-documents and redirections that involve
// bootstrap.sh.
func (in *interp) checkRedirects(redirs []redirect, res resolution, pos position) {
	for _, r := range redirs {
		op := trimFD(r.op)
		switch {
		case res.isCall && (r.doc != nil || op == "<<<"):
			in.warnf(r.pos, "bootstrap.sh does not read its standard input; the here-document given to it is ignored")
		case r.doc != nil && strings.Contains(r.doc.body, bootstrapPath) && res.readsStdin:
			in.errorf(r.pos, "a bootstrap.sh call inside a here-document fed to `%s` (body from line %d) is not supported: nodeboot never runs nested scripts; call %s directly", res.name, in.line(position{line: r.doc.bodyLine}), bootstrapPath)
		case r.doc != nil && strings.Contains(r.doc.body, bootstrapPath):
			in.warnf(r.pos, "the here-document starting on line %d mentions %s; nothing in it runs now and nodeboot ignores calls written there", in.line(position{line: r.doc.bodyLine}), bootstrapPath)
		case op == "<<<" && strings.Contains(r.target.raw, bootstrapPath) && res.readsStdin:
			in.errorf(r.pos, "a bootstrap.sh call inside a here-string fed to `%s` is not supported: nodeboot never runs nested scripts; call %s directly", res.name, bootstrapPath)
		case (strings.HasPrefix(op, ">") || strings.HasPrefix(op, "&>")) && isBootstrapPath(r.target.raw):
			in.warnEdit(pos, "")
		}
		for _, f := range al2Files {
			if r.target.raw == f && op != "<" {
				in.warnf(r.pos, "this line writes %s, an AL2 file that nodeboot neither reads nor writes, so it has no effect; set kubelet.config or containerd.config in a NodeConfig instead", f)
			}
		}
	}
}

// checkPipedToShell reports `… bootstrap.sh … | bash`.
func (in *interp) checkPipedToShell(pl pipeline) {
	for i := 1; i < len(pl.cmds); i++ {
		sc, ok := pl.cmds[i].(*simpleCommand)
		if !ok || !in.resolve(sc).readsStdin {
			continue
		}
		for _, prev := range pl.cmds[:i] {
			if ps, ok := prev.(*simpleCommand); ok && strings.Contains(rawWords(ps.args), bootstrapPath) {
				in.errorf(sc.pos, "a bootstrap.sh call piped into a shell is not supported: nodeboot never runs nested scripts; call %s directly", bootstrapPath)
				return
			}
		}
	}
}

// checkSubstitutions reports bootstrap.sh calls hidden in command and
// process substitutions of a command other than the call, such as
// OUT=$(/etc/eks/bootstrap.sh my-cluster).
func (in *interp) checkSubstitutions(cmd *simpleCommand) {
	words := make([][]part, 0, len(cmd.assigns)+len(cmd.args)+len(cmd.redirs))
	for _, a := range cmd.assigns {
		words = append(words, a.value)
	}
	for _, w := range cmd.args {
		words = append(words, w.parts)
	}
	for _, r := range cmd.redirs {
		words = append(words, r.target.parts)
	}
	for _, parts := range words {
		if p, ok := in.findCallInSubstitution(parts); ok {
			in.errorf(p.pos, "a bootstrap.sh call inside %s is not supported: nodeboot never runs nested commands; call %s directly on its own line", p.what, bootstrapPath)
			return
		}
	}
}

func (in *interp) findCallInSubstitution(parts []part) (part, bool) {
	for _, p := range parts {
		switch {
		case p.kind == partParam:
			if q, ok := in.findCallInSubstitution(p.arg); ok {
				return q, true
			}
		case p.kind == partUnsupported && strings.Contains(p.text, bootstrapPath):
			if inner, ok := substitutionBody(p.text); ok && in.containsCall(inner) {
				return p, true
			}
		}
	}
	return part{}, false
}

// substitutionBody returns the commands inside $(…), `…`, <(…) or >(…).
func substitutionBody(text string) (string, bool) {
	switch {
	case len(text) >= 3 && (strings.HasPrefix(text, "$(") || strings.HasPrefix(text, "<(") || strings.HasPrefix(text, ">(")) && !strings.HasPrefix(text, "$(("):
		return text[2 : len(text)-1], true
	case len(text) >= 2 && text[0] == '`':
		return text[1 : len(text)-1], true
	}
	return "", false
}

// containsCall reports whether a nested script calls bootstrap.sh.
func (in *interp) containsCall(script string) bool {
	l, _, err := parseScript([]byte(script))
	if err != nil {
		return false
	}
	sub := newInterp(in.src, in.base)
	sub.vars = maps.Clone(in.vars)
	sub.walkList(l, execContext{})
	return len(sub.calls) > 0
}
