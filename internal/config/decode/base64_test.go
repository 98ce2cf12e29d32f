package decode

import "testing"

func TestBase64Problem(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "pem text", in: "  -----BEGIN CERTIFICATE-----\nMIIB", want: "it looks like PEM text; give the base64 of the PEM file instead (base64 -w0 ca.crt)"},
		{name: "url-safe alphabet", in: "ab-_", want: "unexpected '-' at offset 2; - and _ are URL-safe base64: use standard base64 with + and / instead"},
		{name: "underscore first", in: "abc_d-==", want: "unexpected '_' at offset 3; - and _ are URL-safe base64: use standard base64 with + and / instead"},
		{name: "dash among other junk", in: "not-base64!", want: "unexpected '-' at offset 3"},
		{name: "junk without dash", in: "abcd!efg", want: "unexpected '!' at offset 4"},
		{name: "space", in: "abcd efg", want: "unexpected ' ' at offset 4"},
		{name: "non-ascii names the rune", in: "abcdé", want: "unexpected 'é' at offset 4"},
		{name: "tab", in: "ab\tc", want: `unexpected '\t' at offset 2`},
		{name: "padding in the middle", in: "ab==cd==", want: "unexpected '=' at offset 2; = may only pad the end"},
		{name: "padding missing", in: "aGVsbG8", want: "the = padding at the end is missing or wrong"},
		{name: "cut short", in: "aGVsb", want: "the length is wrong; it may be cut short"},
		{name: "line breaks are fine", in: "aGVs\nbG8", want: "the = padding at the end is missing or wrong"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := base64Problem(tc.in); got != tc.want {
				t.Errorf("base64Problem(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
