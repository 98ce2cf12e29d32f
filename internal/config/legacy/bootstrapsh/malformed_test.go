package bootstrapsh

import (
	"bytes"
	"compress/gzip"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

// wantLine is the expectation every testdata/malformed script carries:
// "# want: <severity> line <n>: <message substring>". Lines are counted in
// the script; in the substring, {n} stands for the absolute line of script
// line n.
var wantLine = regexp.MustCompile(`(?m)^# want: (error|warning) line (\d+): (.+?)\r?$`)

var scriptLine = regexp.MustCompile(`\{\d+\}`)

// TestMalformed checks that every malformed script is reported with the
// expected severity, absolute line and message. Scripts too large to keep
// as they are (hostile inputs) are stored gzipped, as *.sh.gz.
func TestMalformed(t *testing.T) {
	files := append(golden.Glob(t, "testdata/malformed/*.sh", 20), golden.Glob(t, "testdata/malformed/*.sh.gz", 2)...)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data := readScript(t, file)
			m := wantLine.FindSubmatch(data)
			if m == nil {
				t.Fatalf("no `# want: <severity> line <n>: <substring>` line")
			}
			// The script is part 2 of MIME user data whose body starts on line 20.
			const first = 20
			severity := diag.Severity(m[1])
			line, _ := strconv.Atoi(string(m[2]))
			substring := scriptLine.ReplaceAllStringFunc(string(m[3]), func(s string) string {
				n, _ := strconv.Atoi(s[1 : len(s)-1])
				return strconv.Itoa(first + n - 1)
			})
			doc := userdata.Document{Source: diag.Source{URI: "imds://user-data", Part: 2, Line: first}, Format: userdata.FormatShell, Data: data}
			_, problems := ParseScript(doc)
			for _, p := range problems {
				if p.Severity == severity && strings.Contains(p.Message, substring) && p.Position.Line == first+line-1 {
					if !strings.Contains(p.String(), " line "+strconv.Itoa(first+line-1)) {
						t.Errorf("rendered problem lacks its line: %s", p)
					}
					return
				}
			}
			t.Errorf("want %s at line %d containing %q; got:\n%s", severity, first+line-1, substring, render(problems))
		})
	}
}

// readScript reads a corpus file, gunzipping *.gz.
func readScript(t *testing.T, file string) []byte {
	t.Helper()
	data := golden.Read(t, file)
	if !strings.HasSuffix(file, ".gz") {
		return data
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func render(ps diag.List) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String())
		b.WriteByte('\n')
	}
	return b.String()
}
