package provenance

import (
	"errors"
	"testing"

	"github.com/nodeboot/nodeboot/internal/author/generate"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

// FuzzMerge merges arbitrary user data with a node group's part for a
// family and a producer that merges (picked by which): it must never
// panic, and it either refuses the user data as unmergeable or reports
// settings.
func FuzzMerge(f *testing.F) {
	for _, name := range []string{"karpenter-user.yaml", "eks-user.toml", "karpenter-user.toml", "al2-user.mime"} {
		for which := range uint8(8) {
			f.Add(golden.Read(f, "testdata/"+name), which)
		}
	}
	f.Add([]byte("<powershell>\nStart-EKSBootstrap.ps1\n</powershell>\n"), uint8(3))
	group := readGroup(f, "nodegroup.yaml")
	producers := []generate.Producer{generate.ProducerEKS, generate.ProducerKarpenter}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		docs, problems := userdata.Split(diag.Source{URI: "fuzz"}, data)
		if problems.HasErrors() {
			return
		}
		fam, p := generate.Families()[int(which)%4], producers[int(which/4)%2]
		r, err := Merge(generate.Input{Group: group, Family: fam, Producer: p, User: docs})
		switch {
		case err != nil && !errors.Is(err, generate.ErrUserData):
			t.Fatalf("%s/%s: %v", fam, p, err)
		case err == nil && len(r.Settings) == 0:
			t.Fatalf("%s/%s: no settings", fam, p)
		}
	})
}
