package decode

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

// goldenSource is the source the golden documents are read as: the second
// part of a MIME user data whose body starts on line 12.
var goldenSource = diag.Source{URI: "imds://user-data", Part: 2, ContentType: "application/node.eks.aws", Line: 12}

// TestGolden renders, one per line as `config check` prints them, the
// problems of each bad document in testdata/golden and compares them with
// its .golden file (go test -run TestGolden -update rewrites them).
func TestGolden(t *testing.T) {
	for _, in := range golden.Glob(t, "testdata/golden/*.[jy][sa][om][nl]", 1) {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data := golden.Read(t, in)
			_, problems := NodeConfig(userdata.Document{Source: goldenSource, Format: userdata.FormatNodeConfig, Data: data})
			if len(problems) < 6 {
				t.Errorf("only %d problems; a golden document should show at least 6", len(problems))
			}
			golden.CompareFile(t, strings.TrimSuffix(in, filepath.Ext(in))+".golden", []byte(renderProblems(problems)))
		})
	}
}
