package system

import (
	"strings"
	"testing"
)

func TestPinnedHosts(t *testing.T) {
	const base = "127.0.0.1 localhost\n::1 localhost\n"
	block := hostsBegin + "\n10.0.0.1\tapi.example.com\n10.0.0.2\tapi.example.com\n" + hostsEnd + "\n"
	for _, tc := range []struct {
		name, existing string
		ips            []string
		want           string
	}{
		{"adds a block", base, []string{"10.0.0.1", "10.0.0.2"}, base + block},
		{"idempotent", base + block, []string{"10.0.0.1", "10.0.0.2"}, base + block},
		{"replaces an old block", base + hostsBegin + "\n10.9.9.9\tapi.example.com\n" + hostsEnd + "\n# after\n", []string{"10.0.0.1", "10.0.0.2"}, base + "# after\n" + block},
		{"no trailing newline", "127.0.0.1 localhost", []string{"10.0.0.1", "10.0.0.2"}, "127.0.0.1 localhost\n" + block},
		{"removes the block", base + block, nil, base},
		{"empty file", "", []string{"10.0.0.1", "10.0.0.2"}, block},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, _ := PinnedHosts([]byte(tc.existing), "api.example.com", tc.ips); string(got) != tc.want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestPinnedHostsKeepsLinesItDidNotWrite: a marker without its partner
// (an edited or truncated file) never makes other lines disappear; it is
// kept as it is and reported.
func TestPinnedHostsKeepsLinesItDidNotWrite(t *testing.T) {
	const base = "127.0.0.1 localhost\n"
	block := hostsBegin + "\n10.0.0.1\tapi.example.com\n" + hostsEnd + "\n"
	for _, tc := range []struct {
		name, existing, want string
		warnings             int
	}{
		{"BEGIN without END keeps every later line", base + hostsBegin + "\n10.9.9.9\tapi.example.com\n192.168.0.7 db\n",
			base + hostsBegin + "\n10.9.9.9\tapi.example.com\n192.168.0.7 db\n" + block, 1},
		{"END without BEGIN is kept", base + hostsEnd + "\n192.168.0.7 db\n", base + hostsEnd + "\n192.168.0.7 db\n" + block, 1},
		{"an orphan BEGIN before a whole block", base + hostsBegin + "\n192.168.0.7 db\n" + block,
			base + hostsBegin + "\n192.168.0.7 db\n" + block, 1},
		{"a whole block is replaced without warning", base + block + "192.168.0.7 db\n", base + "192.168.0.7 db\n" + block, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, warnings := PinnedHosts([]byte(tc.existing), "api.example.com", []string{"10.0.0.1"})
			if string(got) != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
			if len(warnings) != tc.warnings {
				t.Errorf("warnings = %q, want %d", warnings, tc.warnings)
			}
			for _, w := range warnings {
				if !strings.Contains(w, "/etc/hosts line ") {
					t.Errorf("warning %q does not say where", w)
				}
			}
		})
	}
}

// FuzzPinnedHosts: whatever /etc/hosts holds, every line outside a whole
// nodeboot block is kept, in order, and the new block is there once.
func FuzzPinnedHosts(f *testing.F) {
	f.Add("127.0.0.1 localhost\n" + hostsBegin + "\n10.0.0.9\tapi\n" + hostsEnd + "\n")
	f.Add(hostsBegin + "\n192.168.0.7 db\n")
	f.Add(hostsEnd + "\r\n" + hostsBegin + "\r\n" + hostsBegin)
	f.Fuzz(func(t *testing.T, existing string) {
		got, _ := PinnedHosts([]byte(existing), "api.example.com", []string{"10.0.0.1"})
		drop, _ := ownBlocks(strings.SplitAfter(existing, "\n"))
		var kept strings.Builder
		for i, line := range strings.SplitAfter(existing, "\n") {
			if !drop[i] {
				kept.WriteString(line)
			}
		}
		if !strings.HasPrefix(string(got), kept.String()) {
			t.Fatalf("lines outside nodeboot blocks were changed:\n%q\nfrom\n%q", got, existing)
		}
		block := hostsBegin + "\n10.0.0.1\tapi.example.com\n" + hostsEnd + "\n"
		if !strings.HasSuffix(string(got), block) {
			t.Fatalf("no pinned block at the end:\n%q", got)
		}
	})
}
