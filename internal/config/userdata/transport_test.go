package userdata

import (
	"strings"
	"testing"
)

func TestSniffBase64(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // "" = not decoded
	}{
		{name: "YAML in the clear", in: "kind: NodeConfig\n"},
		{name: "YAML word true", in: "true"},
		{name: "YAML word null padded to four", in: "null"},
		{name: "word decoding to a plain word", in: "YWJj"},
		{name: "word decoding to binary", in: "abcdefgh"},
		{name: "invalid padding", in: "Zm9vOiBiYXI"},
		{name: "space inside", in: "Zm9v OiBiYXI="},
		{name: "YAML mapping", in: "Zm9vOiBiYXI=", want: "foo: bar"},
		{name: "trailing newlines and CRLF wrapping", in: "Zm9vOiBi\r\nYXI=\r\n\r\n", want: "foo: bar"},
		{name: "gzip magic", in: "H4sIAAA=", want: "\x1f\x8b\x08\x00\x00"},
		{name: "decodes to control bytes", in: "AAECAw==", want: ""},
		{name: "decodes to UTF-8 text", in: b64("clé: valeur"), want: "clé: valeur"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := sniffBase64([]byte(tc.in))
			if ok != (tc.want != "") || string(got) != tc.want {
				t.Errorf("sniffBase64(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
			}
		})
	}
}

func TestGunzipLimit(t *testing.T) {
	bomb := gzipBytes(t, strings.Repeat("\x00", maxInflatedSize+1))
	if _, err := gunzip([]byte(bomb), maxInflatedSize); err == nil || !strings.Contains(err.Error(), "inflates to more than 16 MiB") {
		t.Errorf("err = %v, want the size limit", err)
	}
	exact := gzipBytes(t, strings.Repeat("a", 1000))
	if out, err := gunzip([]byte(exact+exact), maxInflatedSize); err != nil || len(out) != 2000 {
		t.Errorf("concatenated members: len %d, err %v; want 2000, nil", len(out), err)
	}
}
