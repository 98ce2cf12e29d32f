package kubelet

import "testing"

func TestUnquoteFlag(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"double quotes", `--node-labels="a=b,c=d"`, "--node-labels=a=b,c=d"},
		{"single quotes", `--node-labels='a=b'`, "--node-labels=a=b"},
		{"no quotes", "--v=2", "--v=2"},
		{"unbalanced", `--x="a`, `--x="a`},
		{"inner quote kept as is", `--x="a"b"`, `--x="a"b"`},
		{"no value", "--flag", "--flag"},
		{"empty quoted", `--x=""`, "--x="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := UnquoteFlag(tc.in); got != tc.want {
				t.Fatalf("UnquoteFlag(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
