package bootstrapsh

import (
	"slices"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

func parseText(script string) (Result, diag.List) {
	return ParseScript(userdata.Document{
		Source: diag.Source{URI: "imds://user-data", Line: 1},
		Format: userdata.FormatShell,
		Data:   []byte(script),
	})
}

// TestScriptArgs checks how the call's words are expanded: quoting,
// variables, defaults, field splitting and the wrappers in front of it.
func TestScriptArgs(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   []string
	}{
		{name: "plain", script: "/etc/eks/bootstrap.sh c", want: []string{"c"}},
		{name: "single quotes keep everything", script: `/etc/eks/bootstrap.sh 'a $X "b"'`, want: []string{`a $X "b"`}},
		{name: "double quotes expand and escape", script: "X=1\n/etc/eks/bootstrap.sh \"a $X \\\"q\\\" \\$Y \\\\ \\z\"", want: []string{`a 1 "q" $Y \ \z`}},
		{name: "backslash outside quotes", script: `/etc/eks/bootstrap.sh a\ b \'c\'`, want: []string{"a b", "'c'"}},
		{name: "ANSI-C quoting", script: `/etc/eks/bootstrap.sh $'a\tb\x41\'' $"c"`, want: []string{"a\tbA'", "c"}},
		{name: "line continuation", script: "/etc/eks/bootstrap.sh c \\\n  --use-max-pods \\\n  false", want: []string{"c", "--use-max-pods", "false"}},
		{name: "continuation inside word", script: "/etc/eks/bootstrap.sh my-clu\\\nster", want: []string{"my-cluster"}},
		{name: "continuation at the end of the script (bash drops it)", script: "/etc/eks/bootstrap.sh c \\\n  --use-max-pods false \\", want: []string{"c", "--use-max-pods", "false"}},
		{name: "escaped backslash at the end of the script", script: "/etc/eks/bootstrap.sh c d\\\\", want: []string{"c", `d\`}},
		{name: "comments", script: "# /etc/eks/bootstrap.sh commented\n/etc/eks/bootstrap.sh c # trailing\necho a#b", want: []string{"c"}},
		{name: "braced variable glued to text", script: "N=prod\n/etc/eks/bootstrap.sh ${N}-cluster", want: []string{"prod-cluster"}},
		{name: "default when unset", script: `/etc/eks/bootstrap.sh "${NAME:-fallback}"`, want: []string{"fallback"}},
		{name: "colon default when empty", script: "NAME=\n/etc/eks/bootstrap.sh \"${NAME:-fallback}\"", want: []string{"fallback"}},
		{name: "plain default keeps empty", script: "NAME=\n/etc/eks/bootstrap.sh c \"${NAME-fallback}\"", want: []string{"c", ""}},
		{name: "assign default", script: "/etc/eks/bootstrap.sh \"${N:=x}\" \"$N\"", want: []string{"x", "x"}},
		{name: "nested default", script: `/etc/eks/bootstrap.sh "${A:-${B:-deep}}"`, want: []string{"deep"}},
		{name: "default with quotes and spaces", script: `/etc/eks/bootstrap.sh "${A:-'x y'}" ${B:-"p q"} ${C:-r s} ${D:-t\ u}`, want: []string{"'x y'", "p q", "r", "s", "t u"}},
		{name: "unquoted variable splits", script: "ARGS='c  --use-max-pods\tfalse'\n/etc/eks/bootstrap.sh $ARGS", want: []string{"c", "--use-max-pods", "false"}},
		{name: "quoted variable does not split", script: "L='--v=2 --max-pods=3'\n/etc/eks/bootstrap.sh c --kubelet-extra-args \"$L\"", want: []string{"c", "--kubelet-extra-args", "--v=2 --max-pods=3"}},
		{name: "empty unquoted variable vanishes", script: "E=\n/etc/eks/bootstrap.sh c $E --use-max-pods false", want: []string{"c", "--use-max-pods", "false"}},
		{name: "empty quoted argument stays", script: `/etc/eks/bootstrap.sh c ""`, want: []string{"c", ""}},
		{name: "append assignment", script: "A=x\nA+=y\n/etc/eks/bootstrap.sh $A", want: []string{"xy"}},
		{name: "export and readonly", script: "export A=1 B\nreadonly C=2\ndeclare -x D=3\ntypeset E=4\n/etc/eks/bootstrap.sh $A$C$D$E", want: []string{"1234"}},
		{name: "value seen at the time of the call", script: "N=first\n/etc/eks/bootstrap.sh $N\nN=second", want: []string{"first"}},
		{name: "sudo", script: "sudo -E -u root /etc/eks/bootstrap.sh c", want: []string{"c"}},
		{name: "exec", script: "exec /etc/eks/bootstrap.sh c", want: []string{"c"}},
		{name: "bash with options", script: "bash -xe /etc/eks/bootstrap.sh c", want: []string{"c"}},
		{name: "sh -o xtrace", script: "/bin/sh -o xtrace -- /etc/eks/bootstrap.sh c", want: []string{"c"}},
		{name: "env nohup time nice command", script: "env A=1 nohup time -p nice -n 5 command /etc/eks/bootstrap.sh c", want: []string{"c"}},
		{name: "source", script: ". /etc/eks/bootstrap.sh c", want: []string{"c"}},
		{name: "path spelled differently", script: "/etc/eks//./bootstrap.sh c", want: []string{"c"}},
		{name: "path from a variable", script: "B=/etc/eks/bootstrap.sh\n\"$B\" c", want: []string{"c"}},
		{name: "after here-document", script: "cat > /tmp/x <<'EOF'\nnot a command: /etc/eks/bootstrap.sh no\nEOF\n/etc/eks/bootstrap.sh c", want: []string{"c"}},
		{name: "after tab-stripped here-document", script: "cat <<-END >/tmp/y\n\tEND text\n\tEND\n/etc/eks/bootstrap.sh c", want: []string{"c"}},
		{name: "redirections are not arguments", script: "/etc/eks/bootstrap.sh c >> /var/log/b.log 2>&1 </dev/null", want: []string{"c"}},
		{name: "harmless lines around", script: "#!/bin/bash -xe\nset -o xtrace\nset -euo pipefail\nexec > >(tee /var/log/u.log | logger -t ud) 2>&1\nyum install -y jq || true\nif true; then echo hi; fi\ncase $x in a|b) echo;; *) ;; esac\nf() { echo; }\n[[ -f a && ! -f b ]] && echo\n(( i = 1 + 2 ))\n/etc/eks/bootstrap.sh c\nsystemctl restart kubelet", want: []string{"c"}},
		{name: "subshell assignment does not leak", script: "N=outer\n( N=inner )\n/etc/eks/bootstrap.sh $N", want: []string{"outer"}},
		{name: "group assignment does leak", script: "{ N=inner; }\n/etc/eks/bootstrap.sh $N", want: []string{"inner"}},
		{name: "call inside a group", script: "{\n  /etc/eks/bootstrap.sh c\n} > /var/log/b.log", want: []string{"c"}},
		{name: "prefix assignment is not a script variable", script: "N=x true\n/etc/eks/bootstrap.sh ${N:-unset}", want: []string{"unset"}},
		{name: "CRLF lines", script: "N=c\r\n/etc/eks/bootstrap.sh $N \\\r\n --use-max-pods false\r\n", want: []string{"c", "--use-max-pods", "false"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, problems := parseText(tc.script)
			if problems.HasErrors() {
				t.Fatalf("unexpected errors:\n%s", render(problems))
			}
			if !res.Found {
				t.Fatal("call not found")
			}
			if !slices.Equal(res.Args, tc.want) {
				t.Errorf("args = %q, want %q", res.Args, tc.want)
			}
		})
	}
}

// TestScriptNotOurs checks scripts that are not bootstrap.sh user data.
func TestScriptNotOurs(t *testing.T) {
	for _, tc := range []struct{ name, script string }{
		{name: "empty", script: ""},
		{name: "plain script", script: "#!/bin/bash\nyum update -y\necho done > /tmp/x\n"},
		{name: "broken script without a call", script: "#!/bin/bash\nif then fi 'unterminated\n"},
		{name: "readers of bootstrap.sh", script: "cat /etc/eks/bootstrap.sh\nchmod +x /etc/eks/bootstrap.sh\ntest -x /etc/eks/bootstrap.sh && echo ok\ncp /etc/eks/bootstrap.sh /tmp/copy.sh\n"},
		{name: "only defines a function", script: "noop() { :; }\n"},
		{name: "command -v", script: "command -v /etc/eks/bootstrap.sh\n"},
		{name: "substitution reading bootstrap.sh", script: "SUM=$(md5sum /etc/eks/bootstrap.sh)\necho `grep -c KUBELET /etc/eks/bootstrap.sh`\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, problems := parseText(tc.script)
			if res.Found || len(problems) > 0 {
				t.Errorf("Found = %v, problems:\n%s", res.Found, render(problems))
			}
		})
	}
}

// TestScriptEnvironment checks which exported variables reach bootstrap.sh
// as options.
func TestScriptEnvironment(t *testing.T) {
	tests := []struct {
		name       string
		script     string
		wantSet    *bool // spec.maxPods.set from USE_MAX_PODS
		wantErrors int
	}{
		{name: "exported", script: "export USE_MAX_PODS=false\n/etc/eks/bootstrap.sh c", wantSet: ptr(false)},
		{name: "exported later by name", script: "USE_MAX_PODS=false\nexport USE_MAX_PODS\n/etc/eks/bootstrap.sh c", wantSet: ptr(false)},
		{name: "allexport", script: "set -a\nUSE_MAX_PODS=false\nset +a\n/etc/eks/bootstrap.sh c", wantSet: ptr(false)},
		{name: "allexport long form", script: "set -o allexport\nUSE_MAX_PODS=false\n/etc/eks/bootstrap.sh c", wantSet: ptr(false)},
		{name: "not exported", script: "USE_MAX_PODS=false\n/etc/eks/bootstrap.sh c"},
		{name: "unexported", script: "export USE_MAX_PODS=false\nexport -n USE_MAX_PODS\n/etc/eks/bootstrap.sh c"},
		{name: "unset", script: "export USE_MAX_PODS=false\nunset USE_MAX_PODS\n/etc/eks/bootstrap.sh c"},
		{name: "prefix assignment", script: "USE_MAX_PODS=false /etc/eks/bootstrap.sh c", wantSet: ptr(false)},
		{name: "flag wins", script: "export USE_MAX_PODS=false\n/etc/eks/bootstrap.sh c --use-max-pods true", wantSet: ptr(true)},
		{name: "sudo resets", script: "export USE_MAX_PODS=false\nsudo /etc/eks/bootstrap.sh c"},
		{name: "sudo -E keeps", script: "export USE_MAX_PODS=false\nsudo -E /etc/eks/bootstrap.sh c", wantSet: ptr(false)},
		{name: "sudo assignment", script: "sudo USE_MAX_PODS=false /etc/eks/bootstrap.sh c", wantSet: ptr(false)},
		{name: "env -i resets", script: "export USE_MAX_PODS=false\nenv -i /etc/eks/bootstrap.sh c"},
		{name: "env -u removes", script: "export USE_MAX_PODS=false\nenv -u USE_MAX_PODS /etc/eks/bootstrap.sh c"},
		{name: "unknown exported value", script: "export USE_MAX_PODS=$(cat /tmp/x)\n/etc/eks/bootstrap.sh c", wantErrors: 1},
		{name: "unknown value not exported is fine", script: "X=$(cat /tmp/x)\n/etc/eks/bootstrap.sh c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, problems := parseText(tc.script)
			if n := len(problems.Filter(diag.SeverityError)); n != tc.wantErrors {
				t.Errorf("%d errors, want %d:\n%s", n, tc.wantErrors, render(problems))
			}
			got := res.Spec.MaxPods.Set
			if (got == nil) != (tc.wantSet == nil) || (got != nil && *got != *tc.wantSet) {
				t.Errorf("maxPods.set = %v, want %v", fmtBool(got), fmtBool(tc.wantSet))
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func fmtBool(b *bool) string {
	if b == nil {
		return "nil"
	}
	if *b {
		return "true"
	}
	return "false"
}

// TestScriptProblems checks problems that the malformed corpus does not
// pin down, by severity and message.
func TestScriptProblems(t *testing.T) {
	tests := []struct {
		name     string
		script   string
		severity diag.Severity
		want     string
		line     int
	}{
		{name: "background", script: "/etc/eks/bootstrap.sh c &", severity: diag.SeverityWarning, want: "called in the background (&)", line: 1},
		{name: "negated", script: "x=1\n! /etc/eks/bootstrap.sh c", severity: diag.SeverityWarning, want: "called negated with !", line: 2},
		{name: "followed by ||", script: "/etc/eks/bootstrap.sh c || exit 1", severity: diag.SeverityWarning, want: "called followed by || on line 1", line: 1},
		{name: "while loop", script: "while true; do\n/etc/eks/bootstrap.sh c\ndone", severity: diag.SeverityError, want: "inside the while loop on line 1", line: 2},
		{name: "case", script: "case a in\n a) /etc/eks/bootstrap.sh c ;;\nesac", severity: diag.SeverityError, want: "inside the case statement on line 1", line: 2},
		{name: "function keyword", script: "function go {\n/etc/eks/bootstrap.sh c\n}", severity: diag.SeverityError, want: "inside function go (defined on line 1)", line: 2},
		{name: "here-document given to the call", script: "/etc/eks/bootstrap.sh c <<EOF\nx\nEOF", severity: diag.SeverityWarning, want: "does not read its standard input", line: 1},
		{name: "here-document writing a call", script: "cat > /etc/rc.local <<EOF\n/etc/eks/bootstrap.sh c\nEOF\n/etc/eks/bootstrap.sh c", severity: diag.SeverityWarning, want: "the here-document starting on line 2 mentions /etc/eks/bootstrap.sh", line: 1},
		{name: "piped into bash", script: "echo '/etc/eks/bootstrap.sh c' | sudo bash", severity: diag.SeverityError, want: "piped into a shell", line: 1},
		{name: "here-string into bash", script: "bash <<< '/etc/eks/bootstrap.sh c'", severity: diag.SeverityError, want: "here-string fed to `bash`", line: 1},
		{name: "su -c", script: "su -c '/etc/eks/bootstrap.sh c' root", severity: diag.SeverityError, want: "string run by `su`", line: 1},
		{name: "relative path", script: "cd /etc/eks\n./bootstrap.sh c", severity: diag.SeverityWarning, want: `runs "./bootstrap.sh"`, line: 2},
		{name: "edits kubelet config", script: "/etc/eks/bootstrap.sh c\njq '.maxPods=20' /etc/kubernetes/kubelet/kubelet-config.json > /tmp/k", severity: diag.SeverityWarning, want: "uses /etc/kubernetes/kubelet/kubelet-config.json, an AL2 file", line: 2},
		{name: "writes over bootstrap.sh", script: "curl -o /etc/eks/bootstrap.sh https://example.com/b.sh", severity: diag.SeverityWarning, want: "changes /etc/eks/bootstrap.sh", line: 1},
		{name: "redirect over bootstrap.sh", script: "echo exit 0 > /etc/eks/bootstrap.sh", severity: diag.SeverityWarning, want: "changes /etc/eks/bootstrap.sh", line: 1},
		{name: "IFS changed", script: "IFS=,\nA='c,d'\n/etc/eks/bootstrap.sh $A", severity: diag.SeverityWarning, want: "IFS is changed on line 1", line: 3},
		{name: "loop variable", script: "for n in a b; do :; done\n/etc/eks/bootstrap.sh $n", severity: diag.SeverityError, want: "it is the variable of the for loop on line 1", line: 2},
		{name: "read", script: "read -r NAME < /tmp/name\n/etc/eks/bootstrap.sh $NAME", severity: diag.SeverityError, want: "it is set at run time by `read` on line 1", line: 2},
		{name: "array", script: "A=(x y)\n/etc/eks/bootstrap.sh $A", severity: diag.SeverityError, want: "it is an array (line 1)", line: 2},
		{name: "declare -i", script: "declare -i N=1+1\n/etc/eks/bootstrap.sh c$N", severity: diag.SeverityError, want: "it is declared with -i on line 1", line: 2},
		{name: "unset then used", script: "N=c\nunset N\n/etc/eks/bootstrap.sh $N", severity: diag.SeverityError, want: "$N is not set by this script", line: 3},
		{name: "assigned after &&", script: "true && N=c\n/etc/eks/bootstrap.sh $N", severity: diag.SeverityError, want: "it is assigned on line 1 after && on line 1", line: 2},
		{name: "special parameter", script: "/etc/eks/bootstrap.sh \"$@\"", severity: diag.SeverityError, want: "special parameter $@", line: 1},
		{name: "arithmetic", script: "/etc/eks/bootstrap.sh c$((1+1))", severity: diag.SeverityError, want: "arithmetic expansion $((…))", line: 1},
		{name: "unsupported operator", script: "N=abc\n/etc/eks/bootstrap.sh ${N%c}", severity: diag.SeverityError, want: "parameter operator in ${N…}", line: 2},
		{name: "exported unknown variable", script: "export KUBELET_EXTRA_ARGS=\"$(cat /x)\"\n/etc/eks/bootstrap.sh c", severity: diag.SeverityError, want: "--kubelet-extra-args is not given, so bootstrap.sh would read the exported variable KUBELET_EXTRA_ARGS", line: 1},
		{name: "pause image variable", script: "export PAUSE_CONTAINER_IMAGE=x\n/etc/eks/bootstrap.sh c", severity: diag.SeverityWarning, want: "PAUSE_CONTAINER_IMAGE is ignored", line: 1},
		{name: "syntax error", script: "/etc/eks/bootstrap.sh c\nfi", severity: diag.SeverityError, want: "is not valid shell, so the call cannot be read: `fi` can only be used to end an `if`", line: 2},
		{name: "unterminated double quote", script: "/etc/eks/bootstrap.sh \"c", severity: diag.SeverityError, want: "reached EOF without closing quote `\"`", line: 1},
		{name: "unterminated command substitution", script: "/etc/eks/bootstrap.sh $(echo", severity: diag.SeverityError, want: "reached EOF without matching `$(` with `)`", line: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, problems := parseText(tc.script)
			for _, p := range problems {
				if p.Severity == tc.severity && strings.Contains(p.Message, tc.want) && p.Position.Line == tc.line {
					return
				}
			}
			t.Errorf("want %s at line %d containing %q, got:\n%s", tc.severity, tc.line, tc.want, render(problems))
		})
	}
}

// TestScriptLineOffset checks that positions are shifted by the
// document's first line.
func TestScriptLineOffset(t *testing.T) {
	doc := userdata.Document{Source: diag.Source{URI: "imds://user-data", Part: 3, Line: 41}, Data: []byte("#!/bin/bash\n\n/etc/eks/bootstrap.sh c --ip-family ipv5\n")}
	res, problems := ParseScript(doc)
	if got := res.Positions[pathClusterName]; got != (diag.Position{Line: 43, Column: 23}) {
		t.Errorf("cluster name position = %+v, want 43:23", got)
	}
	if len(problems) != 1 || problems[0].Position != (diag.Position{Line: 43, Column: 37}) || problems[0].Field != pathIPFamily {
		t.Fatalf("problems:\n%s", render(problems))
	}
	if src := problems[0].Source; src.Part != 3 || src.Format != FormatName || src.URI != "imds://user-data" {
		t.Errorf("problem source = %+v", src)
	}
}
