package generate

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	v1alpha1 "github.com/nodeboot/nodeboot/api/nodegroup/v1alpha1"
)

// TestEksctlAsRealEksctl holds the differences from the real eksctl that
// test/oracle's TestGenerateAsEksctl found (eksctl v0.215.0's
// pkg/nodebootstrap), one named case each, so that they stay fixed where
// the oracle does not run.
func TestEksctlAsRealEksctl(t *testing.T) {
	group := func(edit func(*v1alpha1.NodeGroupSpec)) v1alpha1.NodeGroup {
		g := v1alpha1.NodeGroup{Metadata: v1alpha1.Metadata{Name: "ng-1"}, Spec: v1alpha1.NodeGroupSpec{
			Cluster: v1alpha1.Cluster{Name: "prod", APIServerEndpoint: "https://prod.example", CertificateAuthority: []byte("ca"), CIDR: "10.100.0.0/16"},
		}}
		edit(&g.Spec)
		return g
	}
	withInstanceType := group(func(s *v1alpha1.NodeGroupSpec) { s.InstanceType = "m5.large" })
	withPrefixDelegation := group(func(s *v1alpha1.NodeGroupSpec) {
		s.InstanceType, s.MaxPods.PrefixDelegation = "m5.large", true
	})
	withKubeletConfig := group(func(s *v1alpha1.NodeGroupSpec) {
		s.Kubelet.Config = map[string]json.RawMessage{"imageGCHighThresholdPercent": json.RawMessage("80")}
	})
	withTaintsOfOneKey := group(func(s *v1alpha1.NodeGroupSpec) {
		s.Taints = []v1alpha1.Taint{{Key: "dedicated", Value: "a", Effect: "NoSchedule"}, {Key: "dedicated", Value: "a", Effect: "NoExecute"}}
	})
	tests := []struct {
		name    string
		group   v1alpha1.NodeGroup
		family  Family
		absent  []string
		present []string
	}{
		// eksctl writes max pods only from maxPodsPerNode; bootstrap.sh,
		// nodeadm and Bottlerocket size them for the instance type.
		{"al2 max pods only from maxPodsPerNode", withInstanceType, FamilyAL2, []string{"MAX_PODS", "--max-pods"}, nil},
		{"al2023 max pods only from maxPodsPerNode", withInstanceType, FamilyAL2023, []string{"maxPods"}, nil},
		{"bottlerocket max pods only from maxPodsPerNode", withInstanceType, FamilyBottlerocket, []string{"max-pods"}, nil},
		{"max pods formula options have no eksctl field", withPrefixDelegation, FamilyAL2023, []string{"maxPods"}, nil},
		// A self-managed Bottlerocket group gets cluster-dns-ip only from
		// its clusterDNS, which a NodeGroup does not have.
		{"bottlerocket without cluster-dns-ip", withInstanceType, FamilyBottlerocket, []string{"cluster-dns-ip"}, []string{"cluster-name"}},
		// eksctl's Bottlerocket taints are a map by key: the last wins.
		{"bottlerocket one taint per key", withTaintsOfOneKey, FamilyBottlerocket, []string{"a:NoSchedule"}, []string{`dedicated = "a:NoExecute"`}},
		// eksctl refuses kubeletExtraConfig for Windows node groups.
		{"windows without kubelet config", withKubeletConfig, FamilyWindows, []string{"--image-gc-high-threshold"}, []string{"-KubeletExtraArgs"}},
		// eksctl's <powershell> block ends without a line break.
		{"windows block ends at its tag", withInstanceType, FamilyWindows, []string{"</powershell>\n"}, []string{"</powershell>"}},
		// eksctl's script reads each instance's lifecycle from instance
		// metadata: a mixed-instances group has on-demand and spot ones.
		{"al2 node-lifecycle from instance metadata", withInstanceType, FamilyAL2, []string{"node-lifecycle=on-demand"}, []string{"node-lifecycle=${INSTANCE_LIFECYCLE}", "meta-data/instance-life-cycle"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Generate(Input{Group: tc.group, Family: tc.family, Producer: ProducerEksctl})
			if err != nil {
				t.Fatal(err)
			}
			text := string(out.UserData)
			for _, s := range tc.absent {
				if strings.Contains(text, s) {
					t.Errorf("eksctl does not write %q:\n%s", s, text)
				}
			}
			for _, s := range tc.present {
				if !strings.Contains(text, s) {
					t.Errorf("eksctl writes %q:\n%s", s, text)
				}
			}
		})
	}
}

// TestEksctlRefusesCriticalKubeletFields: eksctl refuses kubeletExtraConfig
// that overrides what its nodes need to join, so it writes no user data.
func TestEksctlRefusesCriticalKubeletFields(t *testing.T) {
	g := v1alpha1.NodeGroup{Metadata: v1alpha1.Metadata{Name: "ng-1"}, Spec: v1alpha1.NodeGroupSpec{
		Cluster: v1alpha1.Cluster{Name: "prod"},
		Kubelet: v1alpha1.Kubelet{Config: map[string]json.RawMessage{
			"address": json.RawMessage(`"0.0.0.0"`), "serverTLSBootstrap": json.RawMessage("false"), "maxOpenFiles": json.RawMessage("100"),
		}},
	}}
	for _, f := range []Family{FamilyAL2, FamilyAL2023} {
		_, err := Generate(Input{Group: g, Family: f, Producer: ProducerEksctl})
		if !errors.Is(err, ErrRefused) || !strings.Contains(fmt.Sprint(err), "spec.kubelet.config.address, spec.kubelet.config.serverTLSBootstrap:") {
			t.Errorf("%s: got %v, want both fields refused", f, err)
		}
		if _, err := Generate(Input{Group: g, Family: f, Producer: ProducerKarpenter}); err != nil {
			t.Errorf("%s: only eksctl refuses them: %v", f, err)
		}
	}
}
