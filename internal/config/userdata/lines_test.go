package userdata

import (
	"strings"
	"testing"
)

func TestExcerpt(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "short", in: "--//", want: "--//"},
		{name: "cut", in: strings.Repeat("a", 45), want: strings.Repeat("a", 40) + "…"},
		{name: "cut before a split rune", in: strings.Repeat("a", 39) + "é" + "bbbb", want: strings.Repeat("a", 39) + "…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := excerpt([]byte(tc.in)); got != tc.want {
				t.Errorf("excerpt = %q, want %q", got, tc.want)
			}
		})
	}
}
