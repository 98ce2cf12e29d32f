package bottlerocket

import (
	"regexp"
	"strings"
	"testing"
)

// The regular expressions the functions in syntax.go replace. They are the
// specification: every case below and every fuzz input must get the same
// answer from both.
var (
	clusterNameRE = regexp.MustCompile(`^[0-9A-Za-z][A-Za-z0-9\-_]{0,99}$`)
	hostnameRE    = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$`)
	taintRE       = regexp.MustCompile(`^([[:alnum:]]([[:alnum:]._-]{0,61}[[:alnum:]])?)?:([[:alnum:]]{1,253})$`)
	durationRE    = regexp.MustCompile(`^(\d+(\.\d+)?h)?(\d+(\.\d+)?m)?(\d+(\.\d+)?s)?(\d+(\.\d+)?ms)?$`)
	cpuListRE     = regexp.MustCompile(`^\d+(-\d+)?(,\d+(-\d+)?)*$`)
)

// syntaxCases are inputs at the edges of every rule.
var syntaxCases = []string{
	"", "a", "-", "_", ".", ":", "a-", "-a", "a_b", "a.b", "a..b", ".a", "a.", "A1-b_2",
	strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 100), strings.Repeat("a", 101),
	strings.Repeat("a", 63) + "." + strings.Repeat("b", 63), "ip-10-0-0-5.us-west-2.compute.internal",
	"ü", "aü", "a b", "a\n",
	":NoSchedule", "v:NoSchedule", "v.1_x-y:NoExecute", "v-:NoSchedule", "-v:NoSchedule", "v:No:Schedule",
	"v:", "v:No-Schedule", "::", strings.Repeat("v", 63) + ":E", strings.Repeat("v", 64) + ":E",
	":" + strings.Repeat("E", 253), ":" + strings.Repeat("E", 254),
	"1h", "1.5h", "1h2m3s4ms", "1h4ms", "2m1h", "1ms", "1m", "1s", "1ss", "1mm", "1msms", "1.h", ".5h", "1..5h",
	"1h1h", "10", "h", "1.5ms", "1m5ms", "1s1m", "1H",
	"0", "0-1", "0,2,4-7", "0-", "-1", "0,,1", ",", "0-1-2", "1,", "01-02", "a-b",
}

func TestSyntaxMatchesTheExpressions(t *testing.T) {
	for _, s := range syntaxCases {
		checkSyntax(t, s)
	}
}

func FuzzSyntax(f *testing.F) {
	for _, s := range syntaxCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkSyntax(t, s) })
}

func checkSyntax(t *testing.T, s string) {
	t.Helper()
	for _, c := range []struct {
		name string
		got  bool
		re   *regexp.Regexp
	}{
		{"isClusterName", isClusterName(s), clusterNameRE},
		{"isHostname", isHostname(s), hostnameRE},
		{"isDuration", isDuration(s), durationRE},
		{"isCPUList", isCPUList(s), cpuListRE},
	} {
		if want := c.re.MatchString(s); c.got != want {
			t.Errorf("%s(%q) = %v, the expression says %v", c.name, s, c.got, want)
		}
	}
	value, effect, ok := splitTaint(s)
	m := taintRE.FindStringSubmatch(s)
	if ok != (m != nil) || ok && (value != m[1] || effect != m[3]) {
		t.Errorf("splitTaint(%q) = %q, %q, %v; the expression says %q", s, value, effect, ok, m)
	}
}
