package decode

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/diag"
	"github.com/nodeboot/nodeboot/internal/userdata"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenSource is the source the golden documents are read as: the second
// part of a MIME user data whose body starts on line 12.
var goldenSource = diag.Source{URI: "imds://user-data", Part: 2, ContentType: "application/node.eks.aws", Line: 12}

// TestGolden renders, one per line as `config check` prints them, the
// problems of each bad document in testdata/golden and compares them with
// its .golden file (go test -run TestGolden -update rewrites them).
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/golden/*.[jy][sa][om][nl]")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			_, problems := NodeConfig(userdata.Document{Source: goldenSource, Format: userdata.FormatNodeConfig, Data: data})
			if len(problems) < 6 {
				t.Errorf("only %d problems; a golden document should show at least 6", len(problems))
			}
			got := renderProblems(problems)
			golden := strings.TrimSuffix(in, filepath.Ext(in)) + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("problems differ from %s:\n got:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}
