package userdata_test

import (
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/decode"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// badCIDR is a NodeConfig whose only problem is the CIDR at line 5,
// column 11 of its own text.
const badCIDR = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    cidr: 10.0/16\n"

// badCIDRQuotedPrintable is badCIDR as quoted-printable with a soft line
// break, so its raw lines are not its decoded lines.
const badCIDRQuotedPrintable = "apiVersion: node.eks.aws/=\nv1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    cidr: 10.0/16\n"

const cidrMessage = `spec.cluster.cidr: Invalid value: "10.0/16": is not a CIDR; write it like 10.100.0.0/16 or fd00:10:96::/108`

// TestDecodedContentLines checks that problems inside transport-encoded
// content are rendered with lines of the decoded text and say so, while
// plain parts keep lines of the payload.
func TestDecodedContentLines(t *testing.T) {
	tests := []struct {
		name string
		data string
		want []string // rendered decoder problems
	}{
		{
			name: "plain part keeps payload lines",
			data: threeParts(t, "", badCIDR),
			want: []string{"error: imds://user-data part 2 (application/node.eks.aws) line 18:11: " + cidrMessage},
		},
		{
			name: "base64 part",
			data: threeParts(t, "Content-Transfer-Encoding: base64", userdata.Wrap76(userdata.B64(badCIDR))),
			want: []string{"error: imds://user-data part 2 (application/node.eks.aws, base64-decoded) line 5:11: " + cidrMessage},
		},
		{
			name: "quoted-printable part",
			data: threeParts(t, "Content-Transfer-Encoding: quoted-printable", badCIDRQuotedPrintable),
			want: []string{"error: imds://user-data part 2 (application/node.eks.aws, quoted-printable-decoded) line 5:11: " + cidrMessage},
		},
		{
			name: "heuristic base64 part",
			data: threeParts(t, "", userdata.B64(badCIDR)+"\n"),
			want: []string{"error: imds://user-data part 2 (application/node.eks.aws, base64-decoded) line 5:11: " + cidrMessage},
		},
		{
			name: "heuristic base64 of gzip part",
			data: threeParts(t, "", userdata.B64(userdata.GzipBytes(t, badCIDR))+"\n"),
			want: []string{"error: imds://user-data part 2 (application/node.eks.aws, gzip+base64-decoded) line 5:11: " + cidrMessage},
		},
		{
			name: "whole-payload base64 of MIME",
			data: userdata.B64(threeParts(t, "", badCIDR)),
			want: []string{"error: imds://user-data part 2 (application/node.eks.aws, base64-decoded) line 18:11: " + cidrMessage},
		},
		{
			name: "whole-payload base64 of MIME with a base64 part",
			data: userdata.B64(threeParts(t, "Content-Transfer-Encoding: base64", userdata.B64(badCIDR)+"\n")),
			want: []string{"error: imds://user-data part 2 (application/node.eks.aws, base64-decoded) line 5:11: " + cidrMessage},
		},
		{
			name: "whole-payload base64",
			data: userdata.B64(badCIDR),
			want: []string{"error: imds://user-data (base64-decoded) line 5:11: " + cidrMessage},
		},
		{
			name: "whole-payload gzip+base64",
			data: userdata.B64(userdata.GzipBytes(t, badCIDR)),
			want: []string{"error: imds://user-data (gzip+base64-decoded) line 5:11: " + cidrMessage},
		},
		{
			name: "whole-payload gzip",
			data: userdata.GzipBytes(t, badCIDR),
			want: []string{"error: imds://user-data (gzip-decoded) line 5:11: " + cidrMessage},
		},
		{
			name: "plain payload",
			data: badCIDR,
			want: []string{"error: imds://user-data line 5:11: " + cidrMessage},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs, probs := userdata.Split(diag.Source{URI: "imds://user-data"}, []byte(tc.data))
			if len(probs) != 0 {
				t.Fatalf("split problems:\n%s", render(probs))
			}
			var got diag.List
			for _, d := range docs {
				if d.Format != userdata.FormatNodeConfig {
					continue
				}
				_, ps := decode.NodeConfig(d)
				got = append(got, ps...)
			}
			if want := strings.Join(tc.want, "\n") + "\n"; render(got) != want {
				t.Errorf("problems:\n got %s\nwant %s", render(got), want)
			}
		})
	}
}

// threeParts is a MIME payload whose part 2 (body from line 14 when
// header is empty) has the extra header and body given; parts 1 and 3 are
// valid.
func threeParts(t *testing.T, header, body string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n")
	b.WriteString("--//\nContent-Type: application/node.eks.aws\n\n")
	b.WriteString("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster: {name: a}\n") // lines 7-10
	b.WriteString("--//\nContent-Type: application/node.eks.aws\n")
	if header != "" {
		b.WriteString(header + "\n")
	}
	b.WriteString("\n" + body)
	b.WriteString("--//\nContent-Type: text/x-shellscript\n\n#!/bin/bash\necho hi\n--//--\n")
	return b.String()
}

func render(ps diag.List) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}
