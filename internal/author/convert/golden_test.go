package convert

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/legacy/bottlerocket"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

// goldenTargets are the emitters and the file each case's output goes to.
var goldenTargets = []struct {
	name, file string
}{
	{TargetNodeConfig, "expected.nodeconfig"},
	{TargetBootstrapSh, "expected.bootstrap.sh"},
	{TargetBottlerocket, "expected.toml"},
	{TargetWindows, "expected.ps1"},
}

// loadCase reads testdata/<name>: spec.json (a hub.Spec), or user-data.toml
// (Bottlerocket settings, decoded first; they must decode without errors).
func loadCase(t *testing.T, dir string) hub.Spec {
	t.Helper()
	if data, err := os.ReadFile(filepath.Join(dir, "spec.json")); err == nil {
		var spec hub.Spec
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&spec); err != nil {
			t.Fatalf("%s/spec.json: %v", dir, err)
		}
		return spec
	}
	data, err := os.ReadFile(filepath.Join(dir, "user-data.toml"))
	if err != nil {
		t.Fatalf("%s has neither spec.json nor user-data.toml: %v", dir, err)
	}
	res, problems := bottlerocket.Decode(userdata.Document{Source: diag.Source{URI: "file://" + dir, Line: 1}, Data: data})
	if problems.HasErrors() {
		t.Fatalf("%s/user-data.toml: %v", dir, problems.Err())
	}
	return res.Spec
}

// goldenCases lists the case directories under testdata.
func goldenCases(t *testing.T) []string {
	t.Helper()
	return golden.Cases(t, "testdata", 5)
}

// TestGolden checks every emitter's output and notes for every case.
func TestGolden(t *testing.T) {
	for _, name := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", name)
			spec := loadCase(t, dir)
			var notesText strings.Builder
			for _, target := range goldenTargets {
				emit, err := Target(target.name)
				if err != nil {
					t.Fatal(err)
				}
				out, notes, err := emit(spec)
				if err != nil {
					out = []byte("error: " + err.Error() + "\n")
				}
				golden.CompareFile(t, filepath.Join(dir, target.file), out)
				notesText.WriteString("[" + target.name + "]\n")
				for _, n := range notes {
					notesText.WriteString(n + "\n")
				}
			}
			golden.CompareFile(t, filepath.Join(dir, "notes.txt"), []byte(notesText.String()))
		})
	}
}

// TestBottlerocketFormsAgree checks that the table and dotted spellings of
// the same settings give the same spec, hence the same output everywhere.
func TestBottlerocketFormsAgree(t *testing.T) {
	table := loadCase(t, filepath.Join("testdata", "bottlerocket-table"))
	dotted := loadCase(t, filepath.Join("testdata", "bottlerocket-dotted"))
	a, _ := json.Marshal(table)
	b, _ := json.Marshal(dotted)
	if !bytes.Equal(a, b) {
		t.Fatalf("table and dotted forms differ:\n%s\n%s", a, b)
	}
	want := []string{
		"--node-labels=eks.amazonaws.com/capacityType=ON_DEMAND,eks.amazonaws.com/nodegroup=core,team=payments",
		"--register-with-taints=dedicated=gpu:NoSchedule,dedicated=gpu:NoExecute,example.com/maintenance:PreferNoSchedule",
	}
	if got := table.Kubelet.Flags; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("flags = %q, want %q", got, want)
	}
}

// TestBottlerocketDecodeWarnings checks the warnings the Bottlerocket cases
// decode with: one per setting that is not applied, by leaf key and line.
func TestBottlerocketDecodeWarnings(t *testing.T) {
	for _, name := range goldenCases(t) {
		dir := filepath.Join("testdata", name)
		data, err := os.ReadFile(filepath.Join(dir, "user-data.toml"))
		if err != nil {
			continue
		}
		t.Run(name, func(t *testing.T) {
			_, problems := bottlerocket.Decode(userdata.Document{Source: diag.Source{URI: "file://" + dir, Line: 1}, Data: data})
			var text strings.Builder
			for _, p := range problems {
				text.WriteString(p.String() + "\n")
			}
			golden.CompareFile(t, filepath.Join(dir, "warnings.txt"), []byte(text.String()))
		})
	}
}
