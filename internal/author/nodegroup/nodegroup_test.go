package nodegroup

import (
	"bytes"
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	v1alpha1 "github.com/nodeboot/nodeboot/api/nodegroup/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

// TestDecodeGolden reads every testdata/*.yaml and compares the problems
// with testdata/*.problems.
func TestDecodeGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test data: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, problems := Read("file:///"+filepath.Base(f), golden.Read(t, f))
			var b bytes.Buffer
			for _, p := range problems {
				b.WriteString(p.String() + "\n")
			}
			golden.CompareFile(t, strings.TrimSuffix(f, ".yaml")+".problems", b.Bytes())
		})
	}
}

func TestDecodeValid(t *testing.T) {
	d, problems := Read("file:///valid.yaml", golden.Read(t, "testdata/valid.yaml"))
	if problems.HasErrors() {
		t.Fatalf("problems: %v", problems)
	}
	g := d.Group
	if g.Metadata.Name != "payments" || g.Spec.Cluster.Name != "my-cluster" || g.Spec.CapacityType != v1alpha1.CapacitySpot ||
		g.Spec.LaunchTemplate.Version != "3" || len(g.Spec.Taints) != 1 || !g.Spec.MaxPods.Cap || g.Spec.Labels["team"] != "payments" {
		t.Fatalf("decoded %+v", g)
	}
	if string(g.Spec.Kubelet.Config["shutdownGracePeriod"]) != `"30s"` {
		t.Fatalf("kubelet config %s", g.Spec.Kubelet.Config)
	}
	if pos := d.Positions["spec.taints[0].effect"]; pos.Line != 21 {
		t.Fatalf("position of spec.taints[0].effect = %+v, want line 21", pos)
	}
	if CapacityType(g.Spec) != "SPOT" || CapacityType(v1alpha1.NodeGroupSpec{}) != "ON_DEMAND" {
		t.Fatal("CapacityType")
	}
}

func TestReadTransportAndShape(t *testing.T) {
	valid := golden.Read(t, "testdata/valid.yaml")
	for _, tc := range []struct {
		name    string
		data    []byte
		wantErr string
	}{
		{name: "base64", data: []byte(base64.StdEncoding.EncodeToString(valid))},
		{name: "empty", data: []byte("  \n"), wantErr: "holds one YAML or JSON document"},
		{name: "toml", data: []byte("[settings.kubernetes]\ncluster-name = \"x\"\n"), wantErr: "holds one YAML or JSON document"},
		{name: "two documents", data: append(append([]byte{}, valid...), []byte("---\nkind: NodeGroup\n")...), wantErr: "a second YAML document starts here"},
		{name: "not a mapping", data: []byte("- a\n"), wantErr: "must be a mapping"},
		{name: "no spec", data: []byte("apiVersion: nodeboot.io/v1alpha1\nkind: NodeGroup\nmetadata: {name: a}\n"), wantErr: "spec: missing"},
		{name: "yaml syntax", data: []byte("apiVersion: [\n"), wantErr: "line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, problems := Read("file:///x", tc.data)
			if tc.wantErr == "" {
				if problems.HasErrors() {
					t.Fatalf("problems: %v", problems)
				}
				return
			}
			if !problems.HasErrors() || !strings.Contains(problems.Err().Error(), tc.wantErr) {
				t.Fatalf("want an error with %q, got %v", tc.wantErr, problems)
			}
		})
	}
}

// TestExampleIsValid keeps examples/nodegroup.yaml in step with the API.
func TestExampleIsValid(t *testing.T) {
	_, problems := Read("file:///examples/nodegroup.yaml", golden.Read(t, "../../../examples/nodegroup.yaml"))
	if len(problems) > 0 {
		t.Fatalf("examples/nodegroup.yaml: %v", problems)
	}
}
