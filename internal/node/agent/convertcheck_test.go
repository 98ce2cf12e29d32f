package agent

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/maxpods/celexpr"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

// convertCorpus is internal/author/convert's golden corpus: what
// `nodeboot convert` writes for every case and target.
const convertCorpus = "../../author/convert/testdata"

// convertOutputsNodebootReads are the converter outputs nodeboot itself
// accepts as user data. The Windows PowerShell output is for Windows
// nodes, which nodeboot does not configure, so it is not checked.
var convertOutputsNodebootReads = []string{"expected.nodeconfig", "expected.bootstrap.sh", "expected.toml"}

// TestConvertOutputsPassCheck runs every converter output of the golden
// corpus through `config check`: what nodeboot writes, nodeboot must accept.
func TestConvertOutputsPassCheck(t *testing.T) {
	for _, name := range golden.Cases(t, convertCorpus, 5) {
		for _, file := range convertOutputsNodebootReads {
			path, err := filepath.Abs(filepath.Join(convertCorpus, name, file))
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.HasPrefix(data, []byte("error: ")) { // the converter refused this case
				continue
			}
			t.Run(name+"/"+file, func(t *testing.T) {
				a := &Agent{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Expressions: celexpr.Evaluator{}, Root: "/"}
				rep, err := a.Check(t.Context(), []string{"file://" + path})
				if err != nil {
					t.Fatal(err)
				}
				if !rep.Valid {
					var b bytes.Buffer
					_ = rep.WriteText(&b)
					t.Fatalf("nodeboot rejects what convert wrote:\n%s", b.String())
				}
			})
		}
	}
}
