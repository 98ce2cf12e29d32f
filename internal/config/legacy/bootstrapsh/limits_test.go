package bootstrapsh

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// doubling is a script whose variables double on every line: expanded
// literally, n lines make a value of 2^n bytes.
func doubling(n int, call string) string {
	var b strings.Builder
	b.WriteString("V0=xx\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "V%d=\"$V%d$V%d\"\n", i, i-1, i-1)
	}
	b.WriteString(call + "\n")
	return b.String()
}

// chain is a script whose variables are each assigned from the one
// before, the first from a command substitution.
func chain(n int) string {
	var b strings.Builder
	b.WriteString("V0=$(hostname)\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "V%d=\"$V%d\"\n", i, i-1)
	}
	fmt.Fprintf(&b, "/etc/eks/bootstrap.sh \"$V%d\"\n", n)
	return b.String()
}

// nested repeats open n times around middle and close n times after it.
func nested(open, middle, close string, n int) string {
	return strings.Repeat(open, n) + middle + strings.Repeat(close, n)
}

// TestHostileScripts feeds scripts built to exhaust memory, time or the
// stack and checks that each is refused with a clear error, within
// bounded memory: the first error (one more may follow where the call
// uses what could not be expanded) and its line.
func TestHostileScripts(t *testing.T) {
	tests := []struct {
		name   string
		script string
		// want is a substring of the one error expected; "" means the
		// script is not read at all (not bootstrap.sh user data).
		want string
		line int
	}{
		{name: "doubling variable used by the call", script: doubling(40, `/etc/eks/bootstrap.sh "$V40"`),
			want: "more than 1 MiB", line: 20},
		{name: "doubling variable never used", script: doubling(40, "/etc/eks/bootstrap.sh c"),
			want: "more than 1 MiB", line: 20},
		{name: "variable appended to itself", script: "A=0123456789\n" + strings.Repeat("A+=\"$A\"\n", 30) + "/etc/eks/bootstrap.sh c\n",
			want: "more than 1 MiB", line: 17},
		{name: "long chain of unknown values", script: chain(5000),
			want: "$V5000 has no value nodeboot can know: it is assigned on line 5001 from $V4999, which has no value nodeboot can know either; it starts with $V0: it is assigned on line 1 from command substitution", line: 5002},
		{name: "default inside default", script: "/etc/eks/bootstrap.sh " + nested("${A:-", "c", "}", 5000),
			want: "nests too deeply", line: 1},
		{name: "command substitutions", script: "/etc/eks/bootstrap.sh c\nX=" + nested("$(", "x", ")", 5000),
			want: "nests too deeply", line: 1},
		{name: "subshells", script: nested("(", "/etc/eks/bootstrap.sh c", ")", 5000),
			want: "nests too deeply", line: 1},
		{name: "arithmetic", script: "/etc/eks/bootstrap.sh c\n((" + nested("(", "1", ")", 5000) + "))",
			want: "nests too deeply", line: 1},
		{name: "negations", script: "/etc/eks/bootstrap.sh c\n[[ " + strings.Repeat("! ", 5000) + "x ]]",
			want: "nests too deeply", line: 1},
		{name: "if statements", script: "/etc/eks/bootstrap.sh c\n" + nested("if x; then ", "y", "; fi", 12000),
			want: "is too large", line: 1},
		{name: "huge here-document", script: "/etc/eks/bootstrap.sh c\ncat > /x <<EOF\n" + strings.Repeat("line of text $X\n", 20000) + "EOF\n",
			want: "is too large", line: 1},
		{name: "huge script without bootstrap.sh", script: strings.Repeat("echo (((((((((((\n", 50000)},
		{name: "deep script without bootstrap.sh", script: nested("(", "x", ")", 200000)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			res, problems := parseText(tc.script)
			runtime.ReadMemStats(&after)
			if grown := after.TotalAlloc - before.TotalAlloc; grown > 64<<20 {
				t.Errorf("reading a %d-byte script allocated %d MiB", len(tc.script), grown>>20)
			}
			if tc.want == "" {
				if res.Found || len(problems) > 0 {
					t.Fatalf("read as bootstrap.sh user data:\n%s", render(problems))
				}
				return
			}
			errs := problems.Filter(diag.SeverityError)
			if len(errs) == 0 || len(errs) > 2 || !strings.Contains(errs[0].Message, tc.want) || errs[0].Position.Line != tc.line {
				t.Fatalf("want a first error at line %d containing %q (and at most one more), got:\n%s", tc.line, tc.want, render(problems))
			}
			for _, e := range errs {
				if n := len(e.Message); n > 400 {
					t.Errorf("message is %d bytes long: %.200s…", n, e.Message)
				}
			}
		})
	}
}

// TestProblemCount checks that a script with thousands of problems reports
// a bounded number of them and says how many were left out.
func TestProblemCount(t *testing.T) {
	script := strings.Repeat("/etc/eks/bootstrap.sh c\n", 3000)
	_, problems := parseText(script)
	if len(problems) > diag.MaxProblems+1 {
		t.Fatalf("%d problems reported", len(problems))
	}
	last := problems[len(problems)-1]
	if last.Severity != diag.SeverityError || !strings.Contains(last.Message, "2899 more problems") {
		t.Errorf("last problem = %s", last)
	}
}

// TestValuesClippedInMessages checks that a long value is quoted by a short
// prefix only.
func TestValuesClippedInMessages(t *testing.T) {
	long := strings.Repeat("a", 10000)
	_, problems := parseText("/etc/eks/bootstrap.sh c --ip-family " + long + " extra" + long)
	if len(problems) != 2 {
		t.Fatalf("problems:\n%s", render(problems))
	}
	for _, p := range problems {
		if len(p.Message) > 400 {
			t.Errorf("message of %d bytes: %.200s…", len(p.Message), p.Message)
		}
	}
}
