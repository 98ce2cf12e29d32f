package kubelet

import (
	"fmt"
	"net/netip"

	"github.com/nodeboot/nodeboot/api/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// NodeName returns the name the node registers under (--hostname-override):
// the EC2 PrivateDnsName, or the instance ID when the feature gate
// InstanceIdNodeName is on. It returns "" when that source is unknown;
// Render then fails with ErrMissingNodeName.
func NodeName(cfg hub.NodeConfig) string {
	if instanceIDNodeName(cfg) {
		return cfg.Status.Instance.ID
	}
	return cfg.Status.Instance.PrivateDNSName
}

func instanceIDNodeName(cfg hub.NodeConfig) bool {
	return cfg.Spec.FeatureGates[v1alpha1.FeatureInstanceIDNodeName]
}

// nodeName is NodeName with an actionable error when it is empty.
func nodeName(cfg hub.NodeConfig) (string, error) {
	if name := NodeName(cfg); name != "" {
		return name, nil
	}
	if instanceIDNodeName(cfg) {
		return "", fmt.Errorf("%w: feature gate %s is on but status.instance.id is empty",
			ErrMissingNodeName, v1alpha1.FeatureInstanceIDNodeName)
	}
	return "", fmt.Errorf("%w: status.instance.privateDnsName is empty (ec2:DescribeInstances; "+
		"or enable feature gate %s)", ErrMissingNodeName, v1alpha1.FeatureInstanceIDNodeName)
}

// nodeIP returns the validated --node-ip value.
func nodeIP(st hub.InstanceStatus) (string, error) {
	if st.NodeIP == "" {
		return "", ErrMissingNodeIP
	}
	addr, err := netip.ParseAddr(st.NodeIP)
	if err != nil {
		return "", fmt.Errorf("%w: %q", ErrInvalidNodeIP, st.NodeIP)
	}
	return addr.String(), nil
}

// providerID returns the cloud provider ID aws:///<az>/<instance-id>.
func providerID(st hub.InstanceStatus) (string, error) {
	switch {
	case st.ID == "":
		return "", ErrMissingInstanceID
	case st.AvailabilityZone == "":
		return "", ErrMissingAvailabilityZone
	}
	return "aws:///" + st.AvailabilityZone + "/" + st.ID, nil
}
