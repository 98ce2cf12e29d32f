package mimetest

import (
	"encoding/base64"
	"testing"
)

// TestLeaves reads messages with every form Leaves undoes.
func TestLeaves(t *testing.T) {
	zipped := base64.StdEncoding.EncodeToString(Gzip(t, "zipped\n"))
	tests := []struct {
		name      string
		doc       string
		wantMedia []string
		wantBody  []string
	}{
		{
			name:      "plain parts",
			doc:       "Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/x-shellscript\n\necho a\n--B\nContent-Type: text/plain\n\nb\n--B--\n",
			wantMedia: []string{"text/x-shellscript", "text/plain"}, wantBody: []string{"echo a", "b"},
		},
		{
			name:      "base64 part",
			doc:       "Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n\nY2Fmw6kK\n--B--\n",
			wantMedia: []string{"text/plain"}, wantBody: []string{"café\n"},
		},
		{
			name:      "nested multipart and gzip",
			doc:       "Content-Type: multipart/mixed; boundary=B\n\n--B\nContent-Type: multipart/mixed; boundary=IN\n\n--IN\nContent-Type: application/x-gzip\nContent-Transfer-Encoding: base64\n\n" + zipped + "\n--IN--\n--B\nContent-Type: text/plain\n\nouter\n--B--\n",
			wantMedia: []string{"application/x-gzip", "text/plain"}, wantBody: []string{"zipped\n", "outer"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Leaves(t, []byte(tc.doc))
			if len(got) != len(tc.wantMedia) {
				t.Fatalf("%d leaves, want %d: %+v", len(got), len(tc.wantMedia), got)
			}
			for i := range got {
				if got[i].Media != tc.wantMedia[i] || string(got[i].Body) != tc.wantBody[i] {
					t.Errorf("leaf %d = %s %q, want %s %q", i+1, got[i].Media, got[i].Body, tc.wantMedia[i], tc.wantBody[i])
				}
			}
		})
	}
}
