package agent

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/nodeboot/nodeboot/internal/node/render/kubelet"
)

// TestEksctlIMDSLabels: a node booted from eksctl's AL2 cloud-config
// carries the labels eksctl's script takes from instance metadata, its
// instance-life-cycle read only then; when IMDS does not give it, the node
// boots with a warning and without that label. Other user data never reads
// instance-life-cycle.
func TestEksctlIMDSLabels(t *testing.T) {
	eksctl, err := os.ReadFile("../../config/legacy/eksctlal2/testdata/eksctl-v0.215.0-al2.cloud-config")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		userData  []byte
		lifecycle string
		labels    string // the kubelet's --node-labels
		reads     int    // instance-life-cycle lookups
		warns     bool
	}{
		{name: "spot", userData: eksctl, lifecycle: "spot", reads: 1,
			labels: "team=payments,alpha.eksctl.io/cluster-name=prod,alpha.eksctl.io/nodegroup-name=ng-1,node-lifecycle=spot,alpha.eksctl.io/instance-id=i-0123456789abcdef0"},
		{name: "instance-life-cycle missing", userData: eksctl, reads: 1, warns: true,
			labels: "team=payments,alpha.eksctl.io/cluster-name=prod,alpha.eksctl.io/nodegroup-name=ng-1,alpha.eksctl.io/instance-id=i-0123456789abcdef0"},
		{name: "instance-life-cycle not a label value", userData: eksctl, lifecycle: "<html>404</html>", reads: 1, warns: true,
			labels: "team=payments,alpha.eksctl.io/cluster-name=prod,alpha.eksctl.io/nodegroup-name=ng-1,alpha.eksctl.io/instance-id=i-0123456789abcdef0"},
		{name: "not eksctl's user data", userData: readCase(t, "al2-labels-taints"), lifecycle: "spot"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			a, md, _ := newTestAgent(t, root, tc.userData, loadCase(t, "testdata/cases/minimal"))
			md.lifecycle = tc.lifecycle
			var log bytes.Buffer
			a.Log = slog.New(slog.NewTextHandler(&log, nil))
			if err := a.Init(context.Background(), initOpts()); err != nil {
				t.Fatal(err)
			}
			if md.calls["instance-life-cycle"] != tc.reads {
				t.Errorf("instance-life-cycle read %d times, want %d", md.calls["instance-life-cycle"], tc.reads)
			}
			if warned := bytes.Contains(log.Bytes(), []byte("instance-life-cycle")); warned != tc.warns {
				t.Errorf("warned %v, want %v:\n%s", warned, tc.warns, log.Bytes())
			}
			env, err := os.ReadFile(filepath.Join(root, kubelet.EnvironmentPath))
			if err != nil {
				t.Fatal(err)
			}
			if tc.labels == "" {
				if bytes.Contains(env, []byte("node-lifecycle")) || bytes.Contains(env, []byte("alpha.eksctl.io/instance-id")) {
					t.Errorf("kubelet args carry eksctl's IMDS labels:\n%s", env)
				}
				return
			}
			m := regexp.MustCompile(`--node-labels=(\S+)`).FindAllSubmatch(env, -1)
			if len(m) != 1 || string(m[0][1]) != tc.labels {
				t.Errorf("--node-labels %q, want one %q:\n%s", m, tc.labels, env)
			}
		})
	}
}
