package suggest

import (
	"strings"
	"testing"
)

func TestClosest(t *testing.T) {
	fields := []string{"name", "apiServerEndpoint", "certificateAuthority", "cidr", "enableOutpost", "id", "ipFamily"}
	tests := []struct {
		name       string
		word       string
		candidates []string
		want       string
	}{
		{name: "case differs", word: "apiServerEndPoint", candidates: fields, want: "apiServerEndpoint"},
		{name: "one letter missing", word: "certificateAuthorty", candidates: fields, want: "certificateAuthority"},
		{name: "transposition", word: "cdir", candidates: fields, want: "cidr"},
		{name: "snake case", word: "ip_family", candidates: fields, want: "ipFamily"},
		{name: "nothing close", word: "region", candidates: fields, want: ""},
		{name: "short words need exact case-insensitive match", word: "ix", candidates: fields, want: ""},
		{name: "short word case-insensitive", word: "ID", candidates: fields, want: "id"},
		{name: "nearest of two", word: "RAID1", candidates: []string{"RAID0", "RAID10", "Mount"}, want: "RAID0"},
		{name: "api version typo", word: "node.eks.aws/v1alpha", candidates: []string{"node.eks.aws/v1alpha1", "nodeboot.io/v1alpha1"}, want: "node.eks.aws/v1alpha1"},
		{name: "no candidates", word: "x", candidates: nil, want: ""},
		{name: "very long word", word: strings.Repeat("name", 100), candidates: fields, want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Closest(tc.word, tc.candidates); got != tc.want {
				t.Errorf("Closest(%q) = %q, want %q", tc.word, got, tc.want)
			}
		})
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want int
	}{
		{name: "equal", a: "abc", b: "abc", want: 0},
		{name: "empty", a: "", b: "abc", want: 3},
		{name: "substitution", a: "abc", b: "abd", want: 1},
		{name: "transposition", a: "abcd", b: "abdc", want: 1},
		{name: "insertion", a: "kitten", b: "sitting", want: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := distance(tc.a, tc.b); got != tc.want {
				t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
			}
		})
	}
}
