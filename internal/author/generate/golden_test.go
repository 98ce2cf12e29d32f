package generate

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	v1alpha1 "github.com/nodeboot/nodeboot/api/nodegroup/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/author/nodegroup"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

// groups are the node groups every family × producer is generated for:
// one with every field, one with only the cluster name.
var groups = []string{"nodegroup", "minimal"}

// TestGenerateGolden writes each group for every family and producer and
// compares the user data, then the notes, with
// testdata/golden/<group>/<family>-<producer>.
func TestGenerateGolden(t *testing.T) {
	for _, name := range groups {
		g := readGroup(t, name)
		for _, f := range Families() {
			for _, p := range Producers() {
				t.Run(fmt.Sprintf("%s/%s-%s", name, f, p), func(t *testing.T) {
					out, err := Generate(Input{Group: g, Family: f, Producer: p})
					if err != nil {
						t.Fatal(err)
					}
					var b bytes.Buffer
					b.Write(out.UserData)
					if !bytes.HasSuffix(out.UserData, []byte("\n")) {
						b.WriteString("\n")
					}
					b.WriteString("#### notes\n")
					for _, n := range out.Notes {
						b.WriteString(n + "\n")
					}
					golden.CompareFile(t, filepath.Join("testdata", "golden", name, string(f)+"-"+string(p)), b.Bytes())
				})
			}
		}
	}
}

func readGroup(t testing.TB, name string) v1alpha1.NodeGroup {
	t.Helper()
	d, problems := nodegroup.Read("file:///"+name+".yaml", golden.Read(t, filepath.Join("testdata", name+".yaml")))
	if problems.HasErrors() {
		t.Fatalf("%s: %v", name, problems)
	}
	return d.Group
}

func TestParseNames(t *testing.T) {
	for _, f := range Families() {
		if got, err := ParseFamily(string(f)); err != nil || got != f {
			t.Errorf("ParseFamily(%s) = %s, %v", f, got, err)
		}
	}
	for _, p := range Producers() {
		if got, err := ParseProducer(string(p)); err != nil || got != p {
			t.Errorf("ParseProducer(%s) = %s, %v", p, got, err)
		}
	}
	if _, err := ParseFamily("ubuntu"); err == nil || !strings.Contains(err.Error(), "al2, al2023, bottlerocket, windows") {
		t.Errorf("ParseFamily(ubuntu) = %v", err)
	}
	if _, err := ParseProducer("capi"); err == nil {
		t.Error("ParseProducer(capi) accepted")
	}
}
