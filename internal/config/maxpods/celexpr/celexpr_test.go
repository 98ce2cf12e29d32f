package celexpr

import "testing"

// Check and Eval are tested through package maxpods (TestCheckExpression,
// TestEvalExpression, FuzzCheckExpression), which calls them in builds
// without the celexec tag.

func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := compile("((default_enis-1)*(ips_per_eni-1))+2"); err != nil {
			b.Fatal(err)
		}
	}
}
