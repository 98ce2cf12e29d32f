package decode

import (
	"slices"
	"strings"
	"testing"
)

// TestKubeletFlags checks kubelet.flags the way the kubelet receives them
// through systemd: a flag and its value separated by blanks, or a quoted
// value, are one --name=value flag; anything that would add a word, or
// that systemd would change, is refused with the flag's position, as are
// labels, taints and node names the kubelet refuses.
func TestKubeletFlags(t *testing.T) {
	doc := func(flags ...string) string {
		var b strings.Builder
		b.WriteString(eks + "  kubelet:\n    flags:\n")
		for _, f := range flags {
			b.WriteString("    - '" + strings.ReplaceAll(f, "'", "''") + "'\n")
		}
		return b.String()
	}
	tests := []struct {
		name  string
		flags []string
		want  []string // the flags in the spec, when there is no problem
		err   string   // the problem of the last flag, on line 10+len(flags)-1
	}{
		{name: "separated value", flags: []string{`--node-labels "foo=bar"`, `--v 2`}, want: []string{"--node-labels=foo=bar", "--v=2"}},
		{name: "quoted value", flags: []string{`--node-labels="a=b,c=d"`}, want: []string{"--node-labels=a=b,c=d"}},
		{name: "a second flag", flags: []string{`--node-labels foo=bar --v=9`}, err: "contains a blank"},
		{name: "value that is a flag", flags: []string{`--node-labels --v=9`}, err: `node label key "--v" is invalid`}, // the kubelet takes --v=9 as the labels
		{name: "boolean flag and a word", flags: []string{`--fail-swap-on false`}, err: "contains a blank"},
		{name: "non-breaking space", flags: []string{"--node-labels=a=b\u00a0"}, err: "contains a blank (U+00A0)"},
		{name: "escaped character", flags: []string{`--node-labels=a=b\c`}, want: []string{"--node-labels=a=bc"}},
		{name: "backslash", flags: []string{`--node-labels=a=b\\c`}, err: `contains '\\'`},
		{name: "restricted label", flags: []string{"--v=2", "--node-labels=node-role.kubernetes.io/worker="}, err: "kubernetes.io/k8s.io namespace"},
		{name: "taint without effect", flags: []string{"--register-with-taints=dedicated=gpu"}, err: "has no effect"},
		{name: "bad node name", flags: []string{"--hostname-override=node_1"}, err: "is not a valid node name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			decoded, problems := decodeString(doc(tc.flags...))
			if tc.err == "" {
				assertProblems(t, problems, nil)
				if got := decoded[0].Spec.Kubelet.Flags; !slices.Equal(got, tc.want) {
					t.Errorf("flags = %q, want %q", got, tc.want)
				}
				return
			}
			i := len(tc.flags) - 1
			assertProblems(t, problems, []want{{"spec.kubelet.flags[" + string(rune('0'+i)) + "]", 10 + i, 7, tc.err}})
		})
	}
}
