package agent

import (
	"context"
	"encoding/base64"
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

// TestKubeReservedFollowsTheEffectiveMaxPods sizes kube-reserved memory for
// the pod count the kubelet really runs with (11 × pods + 255 Mi).
func TestKubeReservedFollowsTheEffectiveMaxPods(t *testing.T) {
	ca := base64.StdEncoding.EncodeToString(testCA(t))
	args := "--b64-cluster-ca " + ca + " --apiserver-endpoint https://x.gr7.us-west-2.eks.amazonaws.com --dns-cluster-ip 10.100.0.10"
	for _, tc := range []struct {
		name, script string
		maxPods      int // 0: not written
		memory       string
	}{
		{"use-max-pods false: kubelet default 110", "/etc/eks/bootstrap.sh c " + args + " --use-max-pods false", 0, "1465Mi"},
		{"use-max-pods false with --max-pods", "/etc/eks/bootstrap.sh c " + args + " --use-max-pods false --kubelet-extra-args '--max-pods=29'", 29, "574Mi"},
		{"computed", "/etc/eks/bootstrap.sh c " + args, 29, "574Mi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			a, _, _ := newTestAgent(t, root, []byte("#!/bin/bash\n"+tc.script+"\n"), loadCase(t, "testdata/cases/minimal"))
			if err := a.Init(context.Background(), initOpts()); err != nil {
				t.Fatal(err)
			}
			var cfg struct {
				MaxPods      int               `json:"maxPods"`
				KubeReserved map[string]string `json:"kubeReserved"`
			}
			for _, p := range []string{"etc/kubernetes/kubelet/config.json", "etc/kubernetes/kubelet/config.json.d/40-nodeadm.conf"} {
				if b, err := os.ReadFile(filepath.Join(root, p)); err == nil {
					if err := json.Unmarshal(b, &cfg); err != nil {
						t.Fatal(err)
					}
				}
			}
			if cfg.MaxPods != tc.maxPods || cfg.KubeReserved["memory"] != tc.memory {
				t.Fatalf("maxPods %d, kubeReserved.memory %s; want %d, %s", cfg.MaxPods, cfg.KubeReserved["memory"], tc.maxPods, tc.memory)
			}
		})
	}
}

func TestNodeConfigFlagMaxPodsCounts(t *testing.T) {
	data := append(readCase(t, "minimal"), []byte("  kubelet:\n    flags: [\"--max-pods=58\"]\n")...)
	root := t.TempDir()
	a, _, cloud := newTestAgent(t, root, data, loadCase(t, "testdata/cases/minimal"))
	if err := a.Init(context.Background(), initOpts()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "etc/kubernetes/kubelet/config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		KubeReserved map[string]string `json:"kubeReserved"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.KubeReserved["memory"] != "893Mi" {
		t.Fatalf("kubeReserved.memory = %s, want 893Mi (11 × 58 + 255)", cfg.KubeReserved["memory"])
	}
	if cloud.calls["DescribeInstanceTypes"] != 0 {
		t.Fatal("limits looked up although --max-pods fixes them")
	}
}
