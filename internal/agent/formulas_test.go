package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestM5LargeMatchesDocumentedFormulas pins the figures every EKS user
// knows for an m5.large (2 vCPU): maxPods 29 = 3 ENIs × (10 − 1) + 2,
// kubeReserved cpu 70m (6% of core 1 + 1% of core 2), memory 574Mi
// (11 × 29 + 255) and ephemeral-storage 1Gi — whatever format the user data is in.
func TestM5LargeMatchesDocumentedFormulas(t *testing.T) {
	for _, name := range []string{"minimal", "al2-mng-mime", "al2-labels-taints", "bottlerocket-dotted", "bottlerocket-table", "karpenter-al2023-mime"} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			a, _, _ := newTestAgent(t, root, readCase(t, name), loadCase(t, "testdata/cases/minimal"))
			if err := a.Init(context.Background(), initOpts()); err != nil {
				t.Fatal(err)
			}
			var cfg struct {
				MaxPods      int               `json:"maxPods"`
				KubeReserved map[string]string `json:"kubeReserved"`
			}
			for _, p := range []string{"etc/kubernetes/kubelet/config.json", "etc/kubernetes/kubelet/config.json.d/40-nodeadm.conf"} {
				b, err := os.ReadFile(filepath.Join(root, p))
				if err == nil {
					if err := json.Unmarshal(b, &cfg); err != nil {
						t.Fatal(err)
					}
				}
			}
			want := map[string]string{"cpu": "70m", "memory": "574Mi", "ephemeral-storage": "1Gi"}
			if cfg.MaxPods != 29 {
				t.Errorf("maxPods = %d, want 29", cfg.MaxPods)
			}
			for k, v := range want {
				if cfg.KubeReserved[k] != v {
					t.Errorf("kubeReserved[%s] = %q, want %q", k, cfg.KubeReserved[k], v)
				}
			}
		})
	}
}
