package convert

import (
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// TestNodeConfigNotesEksctlIMDSLabels: a NodeConfig cannot carry eksctl's
// AL2 labels from instance metadata; converting says the node loses them.
func TestNodeConfigNotesEksctlIMDSLabels(t *testing.T) {
	for _, tc := range []struct {
		name string
		mark bool
	}{{name: "eksctl's AL2 user data", mark: true}, {name: "other user data"}} {
		t.Run(tc.name, func(t *testing.T) {
			spec := hub.Spec{Cluster: hub.Cluster{Name: "prod"}, Kubelet: hub.Kubelet{EksctlIMDSLabels: tc.mark}}
			_, notes, err := NodeConfigYAML(spec)
			if err != nil {
				t.Fatal(err)
			}
			if noted := strings.Contains(strings.Join(notes, "\n"), "node-lifecycle"); noted != tc.mark {
				t.Errorf("noted %v, want %v: %q", noted, tc.mark, notes)
			}
		})
	}
}
