package bootstrapsh

import "testing"

// BenchmarkParseScript parses the EKS managed node group user data.
func BenchmarkParseScript(b *testing.B) {
	doc := goldenDocument(b, "testdata/eks-mng-al2")
	b.SetBytes(int64(len(doc.Data)))
	b.ReportAllocs()
	for b.Loop() {
		if res, problems := ParseScript(doc); !res.Found || len(problems) != 0 {
			b.Fatalf("found=%v problems=%v", res.Found, problems)
		}
	}
}
