package convert

import "github.com/nodeboot/nodeboot/internal/config/hub"

// KubeletArgs returns the kubelet arguments a bootstrap script takes for k:
// the config fields that have a kubelet flag (in a fixed order), then
// k.Flags verbatim. script names the target in the returned notes, which
// list every setting left out and why; windows leaves out Linux-only
// settings. Config keys in handled are skipped (the caller passes them
// another way).
func KubeletArgs(k hub.Kubelet, script string, windows bool, handled ...string) (args, unexpressible []string) {
	var n notes
	t := argsTarget{script: script, windows: windows, handled: map[string]bool{}}
	for _, key := range handled {
		t.handled[key] = true
	}
	args = kubeletArgs(k, t, &n)
	return args, n
}

// ShellQuote quotes s as one POSIX shell word (as is when safe).
func ShellQuote(s string) string { return shellQuote(s) }

// SingleQuote always quotes s in POSIX shell single quotes.
func SingleQuote(s string) string { return singleQuote(s) }

// PowerShellQuote quotes s as a PowerShell single-quoted string.
func PowerShellQuote(s string) string { return powershellQuote(s) }
