package nodegroup

import (
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

// FuzzRead feeds arbitrary bytes to the NodeGroup reader: it must never
// panic, and a document it accepts must check clean a second time.
func FuzzRead(f *testing.F) {
	f.Add(golden.Read(f, "testdata/valid.yaml"))
	f.Add(golden.Read(f, "testdata/invalid.yaml"))
	f.Add([]byte("apiVersion: nodeboot.io/v1alpha1\nkind: NodeGroup\nmetadata: {name: a}\nspec: {cluster: {name: c}}\n"))
	f.Add([]byte("a: &x [*x, *x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, problems := Read("file:///fuzz", data)
		if problems.HasErrors() {
			return
		}
		if errs := validateGroup(d.Group); len(errs) > 0 {
			t.Fatalf("accepted a group that does not validate: %v", errs)
		}
	})
}
