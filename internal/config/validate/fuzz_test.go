package validate

import (
	"slices"
	"testing"
)

// FuzzNormalizeFlag checks that reading a kubelet.flags item never panics
// and that every flag accepted (FlagProblems empty) reaches the kubelet
// exactly as written: systemd's split leaves it one word, unchanged.
func FuzzNormalizeFlag(f *testing.F) {
	for _, s := range []string{"--v=2", `--node-labels "a=b"`, `--node-labels='a=b'`, `--x a b`, `--x\`, `--x "`,
		"--node-labels=a=b\u00a0", "--register-with-taints=a:NoSchedule", "--hostname-override=X", `--a=\"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, item string) {
		flag := NormalizeFlag(item)
		problems := FlagProblems(flag)
		if len(problems) > 0 {
			return
		}
		if words, err := SystemdWords(flag); err != nil || !slices.Equal(words, []string{flag}) {
			t.Fatalf("%q normalized to %q, accepted, but systemd makes %q of it (%v)", item, flag, words, err)
		}
	})
}
