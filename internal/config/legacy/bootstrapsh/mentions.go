package bootstrapsh

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

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

// checkMentions reports commands other than the call that involve
// /etc/eks/bootstrap.sh or the AL2 kubelet and containerd files.
func (in *interp) checkMentions(cmd *syntax.CallExpr, res resolution, pos position) {
	raw := strings.Join(in.rawWords(cmd.Args), " ")
	for _, f := range al2Files {
		if strings.Contains(raw, f) {
			in.warnf(pos, "this line uses %s, an AL2 file that nodeboot neither reads nor writes, so it has no effect; set kubelet.config or containerd.config in a NodeConfig instead", f)
		}
	}
	if res.name != "" && path.Base(res.name) == "bootstrap.sh" && !isBootstrapPath(res.name) {
		in.warnf(pos, "this line runs %q; nodeboot only reads calls of %s by that exact path", clip(res.name), bootstrapPath)
		return
	}
	if !strings.Contains(raw, bootstrapPath) {
		return
	}
	base := path.Base(res.name)
	switch {
	case res.shellString || base == "eval":
		in.errorf(pos, "a bootstrap.sh call inside a string run by `%s` is not supported: nodeboot never runs nested scripts; call %s directly on its own line", base, bootstrapPath)
	case in.readExtraArgsPatch(base, in.rawWords(cmd.Args)):
	case editsBootstrap(base, in.rawWords(cmd.Args)):
		in.warnEdit(pos, raw)
	case readers[base]:
	case res.name == "":
		in.warnf(pos, "this line mentions %s in a command nodeboot cannot work out; if it runs bootstrap.sh, call it directly", bootstrapPath)
	default:
		in.warnf(pos, "this line passes %s to `%s`, which nodeboot does not understand; if it runs the script, call it directly (sudo, exec, env, nohup, bash or sh in front are fine)", bootstrapPath, clip(base))
	}
}

// eksctlPatchSed is the substitution eksctl's managed node groups on AL2
// run with `sed -i '…' /etc/eks/bootstrap.sh` for maxPodsPerNode: the
// option loop's KUBELET_EXTRA_ARGS=$2 becomes KUBELET_EXTRA_ARGS="$2 FLAGS",
// so a later call's --kubelet-extra-args value gets FLAGS appended.
var eksctlPatchSed = lazyregexp.New(`^'s/KUBELET_EXTRA_ARGS=\$2/KUBELET_EXTRA_ARGS="\$2 ([^"$/\\'` + "`" + `]+)"/'$`)

// readExtraArgsPatch reads eksctl's sed patch of bootstrap.sh (words as
// written: sed -i 'EXPR' /etc/eks/bootstrap.sh) and reports whether the
// command is that patch. Result.ExtraArgsPatch carries it to the calls of
// later documents (ParseScriptAfter), which nodeboot reads as the patched
// bootstrap.sh would run them.
func (in *interp) readExtraArgsPatch(base string, words []string) bool {
	if base != "sed" || len(words) != 4 || words[1] != "-i" || !isBootstrapPath(words[3]) {
		return false
	}
	m := eksctlPatchSed.FindStringSubmatch(words[2])
	if m == nil {
		return false
	}
	in.extraArgsPatch += " " + m[1]
	return true
}

// editsBootstrap reports commands that change /etc/eks/bootstrap.sh,
// given their words as written.
func editsBootstrap(base string, args []string) bool {
	switch base {
	case "sed", "perl":
		for _, w := range args[1:] {
			if strings.HasPrefix(w, "-i") || strings.HasPrefix(w, "--in-place") || (strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, "i")) {
				return true
			}
		}
	case "cp", "mv", "install", "ln":
		return len(args) > 0 && isBootstrapPath(args[len(args)-1]) // the destination
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
func (in *interp) checkRedirects(redirs []*syntax.Redirect, res resolution, pos position) {
	for _, r := range redirs {
		target := in.raw(r.Word)
		isDoc := r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc
		body, bodyLine := "", posOf(r.Pos()).line+1
		if isDoc && r.Hdoc != nil {
			body, bodyLine = in.raw(r.Hdoc), posOf(r.Hdoc.Pos()).line
		}
		docMentions := isDoc && strings.Contains(body, bootstrapPath)
		rpos := posOf(r.Pos())
		switch {
		case res.isCall && (isDoc || r.Op == syntax.WordHdoc):
			in.warnf(rpos, "bootstrap.sh does not read its standard input; the here-document given to it is ignored")
		case docMentions && res.readsStdin:
			in.errorf(rpos, "a bootstrap.sh call inside a here-document fed to `%s` (body from line %d) is not supported: nodeboot never runs nested scripts; call %s directly", clip(res.name), in.line(position{line: bodyLine}), bootstrapPath)
		case docMentions:
			in.warnf(rpos, "the here-document starting on line %d mentions %s; nothing in it runs now and nodeboot ignores calls written there", in.line(position{line: bodyLine}), bootstrapPath)
		case r.Op == syntax.WordHdoc && strings.Contains(target, bootstrapPath) && res.readsStdin:
			in.errorf(rpos, "a bootstrap.sh call inside a here-string fed to `%s` is not supported: nodeboot never runs nested scripts; call %s directly", clip(res.name), bootstrapPath)
		case writes(r.Op) && isBootstrapPath(target):
			in.warnEdit(pos, "")
		}
		for _, f := range al2Files {
			if target == f && r.Op != syntax.RdrIn && !isDoc && r.Op != syntax.WordHdoc {
				in.warnf(rpos, "this line writes %s, an AL2 file that nodeboot neither reads nor writes, so it has no effect; set kubelet.config or containerd.config in a NodeConfig instead", f)
			}
		}
	}
}

// writes reports redirections that write their target.
func writes(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.DplOut, syntax.RdrAll, syntax.AppAll:
		return true
	}
	return false
}

// checkPipedToShell reports `… bootstrap.sh … | bash`.
func (in *interp) checkPipedToShell(cmds []*syntax.Stmt) {
	for i := 1; i < len(cmds); i++ {
		sc, ok := cmds[i].Cmd.(*syntax.CallExpr)
		if !ok || !in.resolve(sc.Args).readsStdin {
			continue
		}
		for _, prev := range cmds[:i] {
			if pc, ok := prev.Cmd.(*syntax.CallExpr); ok && strings.Contains(strings.Join(in.rawWords(pc.Args), " "), bootstrapPath) {
				in.errorf(in.cmdPos(cmds[i]), "a bootstrap.sh call piped into a shell is not supported: nodeboot never runs nested scripts; call %s directly", bootstrapPath)
				return
			}
		}
	}
}

// checkSubstitutions reports bootstrap.sh calls hidden in command and
// process substitutions of a command other than the call, such as
// OUT=$(/etc/eks/bootstrap.sh my-cluster). Every substitution, however
// deeply nested, is looked into once, for the commands directly in it.
func (in *interp) checkSubstitutions(s *syntax.Stmt) {
	if in.nested {
		return // looking for calls only; the outer walk sees nested substitutions
	}
	var found syntax.Node
	what := ""
	visit := func(n syntax.Node) bool {
		if found != nil {
			return false
		}
		switch x := n.(type) {
		case *syntax.CmdSubst:
			if in.containsCall(x.Stmts) {
				found, what = x, describePart(x)
			}
		case *syntax.ProcSubst:
			if in.containsCall(x.Stmts) {
				found, what = x, describePart(x)
			}
		}
		return found == nil
	}
	syntax.Walk(s.Cmd, visit)
	for _, r := range s.Redirs {
		if found == nil {
			syntax.Walk(r, visit)
		}
	}
	if found != nil {
		in.errorf(posOf(found.Pos()), "a bootstrap.sh call inside %s is not supported: nodeboot never runs nested commands; call %s directly on its own line", what, bootstrapPath)
	}
}

// containsCall reports whether the commands of a substitution call
// bootstrap.sh; the variables they would set are forgotten.
func (in *interp) containsCall(stmts []*syntax.Stmt) bool {
	sub := &interp{src: in.src, base: in.base, data: in.data, vars: newScope(in.vars), allexport: in.allexport,
		budget: in.budget, nested: true, parent: in}
	sub.walkStmts(stmts, execContext{})
	return len(sub.calls) > 0
}
