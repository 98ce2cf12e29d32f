package userdata

import (
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// TestSplitFilename: a part's Filename is the name cloud-init gives its
// file (Python's Message.get_filename), which orders its scripts.
func TestSplitFilename(t *testing.T) {
	cases := []struct {
		name, headers, want string
	}{
		{name: "none", headers: "Content-Type: text/x-shellscript", want: ""},
		{name: "quoted", headers: "Content-Type: text/x-shellscript\nContent-Disposition: attachment; filename=\"01-a.sh\"", want: "01-a.sh"},
		{name: "RFC 2231", headers: "Content-Type: text/x-shellscript\nContent-Disposition: attachment; filename*=utf-8''caf%C3%A9.sh", want: "café.sh"},
		{name: "parameter name in capitals", headers: "Content-Type: text/x-shellscript\nContent-Disposition: attachment; FILENAME=\"up.sh\"", want: "up.sh"},
		{name: "Content-Type name when no filename", headers: "Content-Type: text/x-shellscript; name=\"01-a.sh\"", want: "01-a.sh"},
		{name: "filename wins over name", headers: "Content-Type: text/x-shellscript; name=\"n.sh\"\nContent-Disposition: attachment; filename=\"f.sh\"", want: "f.sh"},
		{name: "unquoted with a slash", headers: "Content-Type: text/x-shellscript\nContent-Disposition: attachment; filename=scripts/01.sh", want: "scripts/01.sh"},
		{name: "unquoted with a space", headers: "Content-Type: text/x-shellscript\nContent-Disposition: attachment; filename=a b.sh", want: "a b.sh"},
		{name: "given twice", headers: "Content-Type: text/x-shellscript\nContent-Disposition: attachment; filename=\"a.sh\"; filename=\"b.sh\"", want: "a.sh"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := lf("MIME-Version: 1.0", `Content-Type: multipart/mixed; boundary="b"`, "", "--b", tc.headers, "", "#!/bin/sh", "--b--")
			docs, _ := Split(diag.Source{URI: "file:///user-data"}, []byte(data))
			if len(docs) != 1 {
				t.Fatalf("%d documents, want 1", len(docs))
			}
			if docs[0].Filename != tc.want {
				t.Errorf("Filename = %q, want %q (cloud-init's)", docs[0].Filename, tc.want)
			}
		})
	}
}
