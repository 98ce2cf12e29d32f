package kubeletflag

import (
	"slices"
	"testing"
)

// TestNormalizeItem checks which items become one --name=value flag the
// way systemd's splitting and the kubelet's flag parser would read them.
func TestNormalizeItem(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`--v=2`, `--v=2`},
		{`--node-labels "foo=bar"`, `--node-labels=foo=bar`},
		{`--node-labels foo=bar`, `--node-labels=foo=bar`},
		{`--node-labels  'a=b,c=d' `, `--node-labels=a=b,c=d`},
		{`--node-labels="a=b,c=d"`, `--node-labels=a=b,c=d`},
		{`--node-labels='a=b'`, `--node-labels=a=b`},
		{`--max-pods ""`, `--max-pods=`},
		{`--node-labels "a b"`, `--node-labels=a b`},       // one word with a blank: refused later
		{`--node-labels=a --v=2`, `--node-labels=a --v=2`}, // two flags
		{`--node-labels --v=2`, `--node-labels=--v=2`},     // the kubelet takes the next word, whatever it is
		{`--node-labels a b`, `--node-labels a b`},         // a stray word
		{`--fail-swap-on false`, `--fail-swap-on false`},   // a boolean flag takes no word
		{`--v=2 x`, `--v=2 x`},
		{`--node-labels "a`, `--node-labels "a`}, // unterminated
		{`node-labels a`, `node-labels a`},
	} {
		if got := NormalizeItem(tc.in); got != tc.want {
			t.Errorf("NormalizeItem(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzNormalizeItem checks that reading a kubelet.flags item never panics
// and that every item NotOneWord accepts reaches the kubelet exactly as
// written: systemd's split leaves it one word, unchanged.
func FuzzNormalizeItem(f *testing.F) {
	for _, s := range []string{"--v=2", `--node-labels "a=b"`, `--node-labels='a=b'`, `--x a b`, `--x\`, `--x "`,
		"--node-labels=a=b\u00a0", "--register-with-taints=a:NoSchedule", "--hostname-override=X", `--a=\"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, item string) {
		flag := NormalizeItem(item)
		if NotOneWord(flag) != "" {
			return
		}
		if words, err := SystemdWords(flag); err != nil || !slices.Equal(words, []string{flag}) {
			t.Fatalf("%q normalized to %q, accepted, but systemd makes %q of it (%v)", item, flag, words, err)
		}
	})
}

func TestUnquote(t *testing.T) {
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
			if got := Unquote(tc.in); got != tc.want {
				t.Fatalf("Unquote(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
