package bottlerocket

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

var (
	wantComment = regexp.MustCompile(`(?m)^# want: (.+)$`)
	lineComment = regexp.MustCompile(`(?m)^# line: (\d+)$`)
)

// TestMalformed decodes every testdata/malformed/*.toml and checks that an
// error containing the file's "# want:" text is reported on the line its
// "# line:" comment names (lines of the file, which starts the user data).
func TestMalformed(t *testing.T) {
	for _, file := range golden.Glob(t, "testdata/malformed/*.toml", 20) {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".toml"), func(t *testing.T) {
			data := golden.Read(t, file)
			want := wantComment.FindSubmatch(data)
			line := lineComment.FindSubmatch(data)
			if want == nil || line == nil {
				t.Fatalf("%s needs # want: and # line: comments", file)
			}
			wantLine, _ := strconv.Atoi(string(line[1]))
			_, problems := Decode(userdata.Document{Source: diag.Source{URI: "file://" + file, Line: 1}, Data: data})
			errs := problems.Filter(diag.SeverityError)
			if len(errs) == 0 {
				t.Fatalf("no error reported; problems: %v", problems)
			}
			for _, p := range errs {
				if strings.Contains(p.String(), string(want[1])) {
					if p.Position.Line != wantLine {
						t.Fatalf("error %q is on line %d, want %d", p, p.Position.Line, wantLine)
					}
					return
				}
			}
			t.Fatalf("no error contains %q; got:\n%v", want[1], problems.Err())
		})
	}
}
