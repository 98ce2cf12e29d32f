package target

import (
	"testing"

	"github.com/nodeboot/nodeboot/internal/author/generate"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// FuzzCheck runs every target check on arbitrary user data: it must never
// panic.
func FuzzCheck(f *testing.F) {
	f.Add([]byte("[settings.kubernetes]\ncluster-name = \"c\"\n[a.\"b.c\"]\nx = [1, 2.0, 'q\\'']\ny = {z = \"\\\"\"}\n"))
	f.Add([]byte(mime("text/x-shellscript\n" + nodeConfigYAML)))
	f.Add([]byte("<powershell>\n</powershell>\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, _ := userdata.Split(diag.Source{URI: "fuzz"}, data)
		for _, target := range Targets() {
			for _, family := range generate.Families() {
				_ = Check(docs, target, family, nil)
			}
		}
	})
}
