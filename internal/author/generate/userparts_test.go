package generate

import (
	"encoding/base64"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/testing/mimetest"
)

// leaf is one non-multipart part as a MIME reader that descends nested
// multiparts (cloud-init walks them) reads it.
type leaf struct {
	media string
	body  string
}

// TestUserPartsReadAsWritten generates user data with the user's MIME
// document merged in and reads the output as cloud-init does (every part,
// nested multiparts descended, Content-Transfer-Encoding undone): the
// user's parts come back with their media types and bodies.
func TestUserPartsReadAsWritten(t *testing.T) {
	tests := []struct {
		name string
		user string
		want []leaf
	}{
		{
			name: "plain script",
			user: "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BB\"\n\n--BB\nContent-Type: text/x-shellscript\n\n#!/bin/sh\necho a\n--BB--\n",
			want: []leaf{{"text/x-shellscript", "#!/bin/sh\necho a"}},
		},
		{
			name: "nested multipart keeps its boundary",
			user: "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BB\"\n\n--BB\nContent-Type: multipart/mixed; boundary=\"IN\"\n\n--IN\nContent-Type: text/x-shellscript\n\n#!/bin/sh\necho inner\n--IN--\n--BB\nContent-Type: text/x-shellscript\n\n#!/bin/sh\necho outer\n--BB--\n",
			want: []leaf{{"text/x-shellscript", "#!/bin/sh\necho inner"}, {"text/x-shellscript", "#!/bin/sh\necho outer"}},
		},
		{
			name: "nested multipart whose boundary is ours",
			user: "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BB\"\n\n--BB\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\nContent-Type: text/x-shellscript\n\n#!/bin/sh\necho inner\n--//--\n--BB--\n",
			want: []leaf{{"text/x-shellscript", "#!/bin/sh\necho inner"}},
		},
		{
			name: "gzip part stays gzip",
			user: "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BB\"\n\n--BB\nContent-Type: application/x-gzip\nContent-Transfer-Encoding: base64\n\n" + gzipBase64(t, "#!/bin/sh\necho zipped\n") + "\n--BB--\n",
			want: []leaf{{"application/x-gzip", "#!/bin/sh\necho zipped\n"}},
		},
		{
			name: "UTF-8 script from quoted-printable",
			user: "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BB\"\n\n--BB\nContent-Type: text/x-shellscript\nContent-Transfer-Encoding: quoted-printable\n\n#!/bin/sh\necho caf=C3=A9\n--BB--\n",
			want: []leaf{{"text/x-shellscript", "#!/bin/sh\necho café"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs, probs := userdata.Split(diag.Source{URI: "user"}, []byte(tc.user))
			if probs.HasErrors() {
				t.Fatal(probs)
			}
			g := readGroup(t, "minimal")
			out, err := Generate(Input{Group: g, Family: FamilyAL2023, Producer: ProducerKarpenter, User: docs})
			if err != nil {
				t.Fatal(err)
			}
			got := leavesOf(t, out.UserData)
			if len(got) != len(tc.want)+1 {
				t.Fatalf("parts %q, want %q and Karpenter's\n%s", got, tc.want, out.UserData)
			}
			for i, w := range tc.want {
				if got[i] != w {
					t.Errorf("part %d = %q, want %q\n%s", i+1, got[i], w, out.UserData)
				}
			}
		})
	}
}

// leavesOf reads data as cloud-init does (mimetest.Leaves): every part
// that is not multipart, in order, with its media type and body.
func leavesOf(t *testing.T, data []byte) []leaf {
	t.Helper()
	var out []leaf
	for _, p := range mimetest.Leaves(t, data) {
		out = append(out, leaf{p.Media, string(p.Body)})
	}
	return out
}

// gzipBase64 is s gzipped, then base64-encoded.
func gzipBase64(t *testing.T, s string) string {
	t.Helper()
	return base64.StdEncoding.EncodeToString(mimetest.Gzip(t, s))
}
