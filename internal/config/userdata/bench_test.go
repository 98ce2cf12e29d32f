package userdata

import (
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

// BenchmarkSplitMIME splits a typical three-part MIME user data (two
// NodeConfig parts and a shell script).
func BenchmarkSplitMIME(b *testing.B) {
	data := []byte(threePartMIME)
	src := diag.Source{URI: "imds://user-data"}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		docs, probs := Split(src, data)
		if len(docs) != 3 || len(probs) != 0 {
			b.Fatalf("got %d documents, %v", len(docs), probs)
		}
	}
}
