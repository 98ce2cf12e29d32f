package system

import "testing"

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
			if got := string(PinnedHosts([]byte(tc.existing), "api.example.com", tc.ips)); got != tc.want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
