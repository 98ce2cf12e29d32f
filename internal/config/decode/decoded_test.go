package decode

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
)

func TestNodeConfigSpec(t *testing.T) {
	input := eks + `  cluster:
    name: c
    enableOutpost: false
  instance:
    environment:
      default:
        HTTPS_PROXY: http://p:3128
  kubelet:
    flags: [--v=2, --node-labels=a=b]
    config:
      maxPods: 58
      evictionHard: {memory.available: 100Mi}
  containerd:
    baseRuntimeSpec:
      process: {rlimits: [{type: RLIMIT_NOFILE, soft: 0x400}]}
---
# empty documents are skipped
---
` + nb + `  cluster:
    name: d
    ipFamily: ipv6
  identity:
    mode: ExecCredential
    exec: {command: aws, args: [eks], env: {A: b}}
  maxPods: {prefixDelegation: true, maxENIs: 2}
`
	got, problems := decodeString(input)
	if len(problems) != 0 {
		t.Fatalf("unexpected problems:\n%s", renderProblems(problems))
	}
	if len(got) != 2 {
		t.Fatalf("got %d documents, want 2", len(got))
	}
	f := false
	tr := true
	want0 := hub.Spec{
		Cluster:  hub.Cluster{Name: "c", EnableOutpost: &f},
		Instance: hub.Instance{Environment: map[string]map[string]string{"default": {"HTTPS_PROXY": "http://p:3128"}}},
		Kubelet: hub.Kubelet{
			Flags:  []string{"--v=2", "--node-labels=a=b"},
			Config: map[string]json.RawMessage{"maxPods": json.RawMessage(`58`), "evictionHard": json.RawMessage(`{"memory.available":"100Mi"}`)},
		},
		Containerd: hub.Containerd{BaseRuntimeSpec: map[string]json.RawMessage{
			"process": json.RawMessage(`{"rlimits":[{"type":"RLIMIT_NOFILE","soft":1024}]}`),
		}},
	}
	want1 := hub.Spec{
		Cluster:  hub.Cluster{Name: "d", IPFamily: "ipv6"},
		Identity: hub.Identity{Mode: "ExecCredential", Exec: hub.ExecCredential{Command: "aws", Args: []string{"eks"}, Env: map[string]string{"A": "b"}}},
		MaxPods:  hub.MaxPodsPolicy{PrefixDelegation: &tr, MaxENIs: 2},
	}
	checks := []struct {
		name       string
		doc        Decoded
		spec       hub.Spec
		apiVersion string
		line       int
	}{
		{name: "node.eks.aws document", doc: got[0], spec: want0, apiVersion: "node.eks.aws/v1alpha1", line: 5},
		{name: "nodeboot.io document", doc: got[1], spec: want1, apiVersion: "nodeboot.io/v1alpha1", line: 26},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if !reflect.DeepEqual(c.doc.Spec, c.spec) {
				gotJSON, _ := json.Marshal(c.doc.Spec)
				wantJSON, _ := json.Marshal(c.spec)
				t.Errorf("spec:\n got %s\nwant %s", gotJSON, wantJSON)
			}
			if c.doc.APIVersion != c.apiVersion || c.doc.Source.Line != c.line || c.doc.Source.URI != testSource.URI {
				t.Errorf("got apiVersion %q source %+v, want %q line %d", c.doc.APIVersion, c.doc.Source, c.apiVersion, c.line)
			}
		})
	}
	t.Run("positions", func(t *testing.T) {
		wantPositions := map[string]diag.Position{
			"apiVersion":                                                 {Line: 5, Column: 13},
			"spec.cluster.name":                                          {Line: 9, Column: 11},
			"spec.instance.environment[default]":                         {Line: 14, Column: 9},
			"spec.instance.environment[default][HTTPS_PROXY]":            {Line: 14, Column: 22},
			"spec.kubelet.flags[1]":                                      {Line: 16, Column: 20},
			"spec.kubelet.config[maxPods]":                               {Line: 18, Column: 16},
			"spec.kubelet.config[evictionHard][memory.available]":        {Line: 19, Column: 40},
			"spec.containerd.baseRuntimeSpec[process][rlimits][0][soft]": {Line: 22, Column: 55},
		}
		for path, pos := range wantPositions {
			if got := got[0].Positions[path]; got != pos {
				t.Errorf("Positions[%q] = %+v, want %+v", path, got, pos)
			}
		}
		if pos := got[1].Positions["spec.maxPods.maxENIs"]; pos != (diag.Position{Line: 35, Column: 46}) {
			t.Errorf("second document Positions[spec.maxPods.maxENIs] = %+v", pos)
		}
	})
}
