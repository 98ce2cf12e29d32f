package userdata

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// malformedCases gives, for every file in testdata/malformed, the problem
// Split must report: its severity, a message substring naming the problem,
// the line it must point at, how many documents survive and the part the
// problem is attributed to.
var malformedCases = map[string]struct {
	severity diag.Severity
	message  string
	line     int
	docs     int
	part     int // Source.Part of the problem
}{
	"01-missing-boundary-param.txt":        {diag.SeverityError, "Content-Type multipart/mixed at line 2 has no boundary= parameter", 2, 0, 0},
	"02-empty-boundary.txt":                {diag.SeverityError, "has an empty boundary= parameter", 2, 0, 0},
	"03-no-blank-after-headers.txt":        {diag.SeverityError, `MIME header block (line 1) is not followed by a blank line: line 3 "--//" starts a part`, 3, 0, 0},
	"04-garbage-in-headers.txt":            {diag.SeverityError, `line 3 "Hello world" is not a MIME header, and no blank line ends the header block`, 3, 0, 0},
	"05-boundary-never-found.txt":          {diag.SeverityError, `boundary "==MYBOUNDARY==" declared at line 2 is never used: no line "--==MYBOUNDARY==" found; line 4 is "--==BOUNDARY=="`, 2, 0, 0},
	"06-part-yaml-glued.txt":               {diag.SeverityError, `part 1 (line 4): headers are not followed by a blank line: line 6 "apiVersion: node.eks.aws/v1alpha1" is not a MIME header`, 6, 0, 1},
	"07-part-shell-glued.txt":              {diag.SeverityError, `part 2 (line 10): headers are not followed by a blank line: line 12 "#!/bin/bash"`, 12, 1, 2},
	"08-part-no-headers.txt":               {diag.SeverityError, `part 1 (line 4) has no headers and no blank line: it starts with "#!/bin/bash" at line 5`, 5, 0, 1},
	"09-part-no-content-type.txt":          {diag.SeverityWarning, "part 1 (line 4) has no Content-Type header; read as text/plain", 4, 1, 1},
	"10-missing-closing-boundary.txt":      {diag.SeverityError, `closing boundary "--//--" not found by the end of the data (line 8): part 1 (from line 4) may be truncated`, 8, 1, 0},
	"11-stray-preamble.txt":                {diag.SeverityWarning, `stray text "${node_config}" at line 4 before the first boundary line (MIME preamble)`, 4, 1, 0},
	"12-stray-epilogue.txt":                {diag.SeverityWarning, `stray text "EOF" at line 10 after the closing boundary (MIME epilogue)`, 10, 1, 0},
	"13-nested-multipart.txt":              {diag.SeverityWarning, "part 1 (body at line 7) is a nested multipart/alternative; nested multipart is not descended", 7, 1, 1},
	"14-bad-base64-cte.txt":                {diag.SeverityError, "part 1: Content-Transfer-Encoding base64 (line 6), but the body starting at line 8 does not decode", 8, 0, 1},
	"15-corrupt-gzip-part.txt":             {diag.SeverityError, "part 1 (body at line 8): data starts with the gzip magic bytes 1f 8b but is not a valid gzip stream", 8, 0, 1},
	"16-invalid-part-content-type.txt":     {diag.SeverityError, `part 1: invalid Content-Type ";charset=utf-8" at line 5`, 5, 0, 1},
	"17-fold-before-header.txt":            {diag.SeverityError, `part 1 (line 4): line 5 "  Content-Type: text/x-shellscript" is indented (a folded header line) but no header precedes it`, 5, 0, 1},
	"18-unquoted-boundary.txt":             {diag.SeverityError, `boundary parameter at line 2 is not valid MIME syntax; quote it: boundary="//"; nodeadm cannot read this message`, 2, 1, 0},
	"19-leading-blank-line.txt":            {diag.SeverityWarning, "1 blank line(s) before the MIME headers at line 2", 1, 1, 0},
	"20-headers-only.txt":                  {diag.SeverityError, "MIME header block (line 1) is not followed by a blank line and a body: the data ends at line 2", 2, 0, 0},
	"21-unknown-cte.txt":                   {diag.SeverityWarning, `part 1: unknown Content-Transfer-Encoding "uuencode" at line 6`, 6, 1, 1},
	"22-no-parts.txt":                      {diag.SeverityWarning, "multipart message has no parts: the closing boundary at line 4 comes before", 4, 0, 0},
	"23-bad-quoted-printable.txt":          {diag.SeverityError, "part 1: Content-Transfer-Encoding quoted-printable (line 6), but the body starting at line 8 does not decode", 8, 0, 1},
	"24-empty-part.txt":                    {diag.SeverityWarning, "part 1 (line 4) is empty: no headers and no body; skipped", 4, 1, 1},
	"25-crlf-part-yaml-glued.txt":          {diag.SeverityError, `part 1 (line 4): headers are not followed by a blank line: line 6 "apiVersion: node.eks.aws/v1alpha1"`, 6, 0, 1},
	"26-closing-boundary-mismatch.txt":     {diag.SeverityError, `closing boundary "--//--" not found by the end of the data (line 9): part 1 (from line 4) may be truncated; line 9 "--BOUNDARY--" closes a different boundary`, 9, 1, 0},
	"28-ends-on-opening-boundary.txt":      {diag.SeverityWarning, `closing boundary "--//--" not found: the data ends after the "--//" line at line 13 with no part after it; read as the end of the message, as Go's mime/multipart (and nodeadm) read it`, 13, 1, 0},
	"29-ends-within-last-part-headers.txt": {diag.SeverityWarning, `closing boundary "--//--" not found: the data ends after the "--//" line at line 13`, 13, 1, 0},
	"30-crlf-ends-on-opening-boundary.txt": {diag.SeverityWarning, `closing boundary "--==B==--" not found: the data ends after the "--==B==" line at line 13`, 13, 1, 0},
	"31-unquoted-boundary-al2.txt":         {diag.SeverityWarning, `boundary parameter at line 2 is not valid MIME syntax; quote it: boundary="//"`, 2, 1, 0},
	"27-parts-inflate-past-total.txt":      {diag.SeverityError, "part 3 (body at line 428): the parts of this user data decode to more than 16 MiB in total", 428, 2, 3},
}

func TestSplitMalformedMIME(t *testing.T) {
	files, err := filepath.Glob("testdata/malformed/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(malformedCases) {
		t.Errorf("testdata/malformed has %d files, malformedCases %d entries", len(files), len(malformedCases))
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			tc, ok := malformedCases[name]
			if !ok {
				t.Fatalf("no expectation for %s in malformedCases", name)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			src := diag.Source{URI: "file:///" + name}
			docs, probs := Split(src, data)
			if len(probs) != 1 {
				t.Fatalf("want exactly one problem, got %d:\n%v", len(probs), probs)
			}
			p := probs[0]
			if p.Severity != tc.severity || !strings.Contains(p.Message, tc.message) || p.Position.Line != tc.line {
				t.Errorf("problem = %s\nwant %s at line %d containing %q", p, tc.severity, tc.line, tc.message)
			}
			if s := p.String(); !strings.Contains(s, fmt.Sprintf(" line %d: ", tc.line)) {
				t.Errorf("rendered problem %q does not name line %d", s, tc.line)
			}
			if p.Source.URI != src.URI || p.Source.Part != tc.part {
				t.Errorf("problem source = %+v, want URI %q part %d", p.Source, src.URI, tc.part)
			}
			if len(docs) != tc.docs {
				t.Errorf("got %d documents, want %d", len(docs), tc.docs)
			}
			for _, d := range docs {
				if bytes.Equal(d.Data, data) {
					t.Errorf("the whole payload came back as one %s document", d.Format)
				}
			}
		})
	}
}
