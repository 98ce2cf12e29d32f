package plan

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
)

func TestPreviewFindings(t *testing.T) {
	tests := []struct {
		name       string
		setup      func(f *fixture, node string)
		wantKind   FindingKind
		wantBlocks bool
		wantDetail string
	}{
		{name: "budget that can never allow a disruption", wantKind: FindingPDBNeverAllows, wantBlocks: true, wantDetail: "default/db allows 0 disruptions (2 healthy, 2 wanted, 2 expected)",
			setup: func(f *fixture, n string) { f.addPod(n, "db"); f.addPDB("db", "db", 0, 2, 2, 2) }},
		{name: "budget with no slack now", wantKind: FindingPDBAllowsNone, wantDetail: "waits until replicas are Ready elsewhere",
			setup: func(f *fixture, n string) { f.addPod(n, "web"); f.addPDB("web", "web", 0, 2, 2, 3) }},
		{name: "several budgets", wantKind: FindingMultiplePDBs, wantBlocks: true, wantDetail: "2 budgets (default/a, default/b)",
			setup: func(f *fixture, n string) {
				f.addPod(n, "web")
				f.addPDB("a", "web", 1, 2, 1, 2)
				f.addPDB("b", "web", 1, 2, 1, 2)
			}},
		{name: "single replica without a budget", wantKind: FindingSingleReplica, wantDetail: "only replica of ReplicaSet solo-rs",
			setup: func(f *fixture, n string) { f.addPod(n, "solo") }},
		{name: "no controller", wantKind: FindingUnreplicated, wantDetail: "not recreated",
			setup: func(f *fixture, n string) { f.addPod(n, "bare", unowned()) }},
		{name: "tolerates every taint", wantKind: FindingToleratesAllTaints, wantDetail: "back on a cordoned node",
			setup: func(f *fixture, n string) { f.addPod(n, "tol", tolerateAll()) }},
		{name: "emptyDir data", wantKind: FindingEmptyDir, wantDetail: "emptyDir volumes scratch",
			setup: func(f *fixture, n string) { f.addPod(n, "cache", withEmptyDir()) }},
		{name: "do-not-disrupt", wantKind: FindingDoNotDisrupt, wantBlocks: true, wantDetail: "nodeboot.io/do-not-disrupt=true",
			setup: func(f *fixture, n string) { f.addPod(n, "batch", annotated("nodeboot.io/do-not-disrupt", "true")) }},
		{name: "cluster autoscaler safe-to-evict false", wantKind: FindingDoNotDisrupt, wantBlocks: true, wantDetail: "safe-to-evict=false",
			setup: func(f *fixture, n string) {
				f.addPod(n, "ca", annotated("cluster-autoscaler.kubernetes.io/safe-to-evict", "false"))
			}},
		{name: "stuck terminating", wantKind: FindingStuckTerminating, wantBlocks: true, wantDetail: "10m0s past its grace period",
			setup: func(f *fixture, n string) { f.addPod(n, "stuck", deletedAt(t0.Add(-10*time.Minute))) }},
		{name: "grace period beyond the drain timeout", wantKind: FindingTerminationTooLong, wantBlocks: true, wantDetail: "1h0m0s exceeds the drain timeout 15m0s",
			setup: func(f *fixture, n string) { f.addPod(n, "slow", grace(3600)) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(3, threeZones(), nil)
			tc.setup(f, "node-001")
			r, err := Preview(f.snapshot(), PreviewOptions{Target: "2"})
			if err != nil {
				t.Fatal(err)
			}
			var node NodeReport
			for _, n := range r.Nodes {
				if n.Name == "node-001" {
					node = n
				}
			}
			found := false
			for _, fd := range node.Findings {
				if fd.Kind == tc.wantKind {
					found = true
					if fd.Blocks != tc.wantBlocks || !strings.Contains(fd.Detail, tc.wantDetail) {
						t.Errorf("finding %+v, want blocks %t and detail %q", fd, tc.wantBlocks, tc.wantDetail)
					}
				}
			}
			if !found {
				t.Fatalf("findings %+v lack %s", node.Findings, tc.wantKind)
			}
			if node.Blocks() != tc.wantBlocks || (tc.wantBlocks && node.Drain != 15*time.Minute) {
				t.Errorf("node blocks %t drain %s; want %t (blocking drains estimated at the timeout)", node.Blocks(), node.Drain, tc.wantBlocks)
			}
		})
	}
}

func TestPreviewPlainPodsHaveNoFindings(t *testing.T) {
	f := newFixture(3, threeZones(), nil)
	f.addPod("node-001", "web-1", withLabels("app", "web"))
	f.addPod("node-002", "web-2", withLabels("app", "web"))
	for i := range f.pods {
		f.pods[i].OwnerReferences[0].UID = "rs-web"
		f.pods[i].Labels["app"] = "web"
	}
	f.addPDB("web", "web", 1, 2, 1, 2)
	f.addPod("node-001", "ds", ownedBy("DaemonSet", "agent"))
	r, err := Preview(f.snapshot(), PreviewOptions{Target: "2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range r.Nodes {
		if len(n.Findings) > 0 {
			t.Errorf("node %s findings %+v, want none", n.Name, n.Findings)
		}
	}
	if r.Nodes[0].Pods != 1 {
		t.Errorf("node-001 moves %d pods, want 1 (the DaemonSet pod stays)", r.Nodes[0].Pods)
	}
}

func TestPreviewEstimate(t *testing.T) {
	f := newFixture(30, threeZones(), func(s *rolloutv1.NodeGroupRolloutSpec) { s.MaxUnavailable = ptr.To(intstr.FromInt32(3)) })
	f.addPod("node-001", "db")
	f.addPDB("db", "db", 0, 1, 1, 1) // node-001 blocks: its drain counts as the full timeout
	for i := 2; i <= 30; i++ {
		f.addPod(f.nodes[i-1].Name, "web"+f.nodes[i-1].Name, grace(10))
	}
	r, err := Preview(f.snapshot(), PreviewOptions{Target: "2", AssumedNodeReady: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if r.Outdated != 30 || r.Batches != 10 || r.Surge != 6 || r.MaxUnavailable != 3 {
		t.Fatalf("report %+v", r)
	}
	// surge 1m + drains (15m + 9 × 10s) + waits 10 × 60s + back-fills (10 − 2) × 1m
	want := time.Minute + 15*time.Minute + 90*time.Second + 10*time.Minute + 8*time.Minute
	if r.Estimate != want {
		t.Errorf("estimate %s, want %s (%+v)", r.Estimate, want, r.EstimateParts)
	}
	minimal := newFixture(6, threeZones(), func(s *rolloutv1.NodeGroupRolloutSpec) { s.Strategy = rolloutv1.StrategyMinimal })
	r, _ = Preview(minimal.snapshot(), PreviewOptions{Target: "2", AssumedNodeReady: time.Minute})
	if r.Surge != 0 || r.Estimate != 6*time.Minute+6*time.Minute {
		t.Errorf("minimal: surge %d estimate %s, want 0 and 6 × (60 s wait + 1 m back-fill)", r.Surge, r.Estimate)
	}
}

func TestPreviewWarnings(t *testing.T) {
	f := newFixture(3, threeZones(), nil)
	for i := range f.nodes {
		delete(f.nodes[i].Labels, LabelNodeGroup)
	}
	r, _ := Preview(f.snapshot(), PreviewOptions{Target: "2"})
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "eksLabels false") {
		t.Errorf("warnings %v, want the EKS label warning", r.Warnings)
	}
	r, _ = Preview(f.snapshot(), PreviewOptions{Target: "1"})
	if r.Outdated != 0 || !strings.Contains(strings.Join(r.Warnings, "\n"), "nothing to replace") {
		t.Errorf("outdated %d warnings %v", r.Outdated, r.Warnings)
	}
	r, _ = Preview(f.snapshot(), PreviewOptions{Target: ""})
	if r.Outdated != 3 || !strings.Contains(r.Target, "a new version of launch template lt-1") {
		t.Errorf("image rollout: outdated %d target %q", r.Outdated, r.Target)
	}
	f.group.LaunchTemplate = nil
	if _, err := Preview(f.snapshot(), PreviewOptions{Target: "2"}); err == nil {
		t.Errorf("no error for a group without a launch template")
	}
}
