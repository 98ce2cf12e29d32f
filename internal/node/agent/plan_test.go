package agent

import (
	"errors"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/node/render/containerd"
	"github.com/nodeboot/nodeboot/internal/node/render/kubelet"
)

// TestMakePlanReportsEveryError checks that rendering reports all its
// problems at once, not the first one only.
func TestMakePlanReportsEveryError(t *testing.T) {
	st := benchStatus()
	st.ContainerdVersion = ""       // containerd cannot be rendered
	st.Instance.NodeIP = ""         // nor the kubelet's --node-ip
	st.Instance.PrivateDNSName = "" // nor its node name
	spec := hub.Spec{Cluster: hub.Cluster{Name: "c", APIServerEndpoint: "https://x.example.com", CIDR: "10.100.0.0/16"}}
	_, err := MakePlan(hub.NodeConfig{Spec: spec, Status: st}, HostInputs{}, AllDaemons)
	for _, want := range []error{containerd.ErrContainerdVersion, kubelet.ErrMissingNodeIP, kubelet.ErrMissingNodeName} {
		if !errors.Is(err, want) {
			t.Errorf("error does not report %q:\n%v", want, err)
		}
	}
}
