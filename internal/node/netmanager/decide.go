package netmanager

import (
	"encoding/json"
	"strings"
)

// Managers of a network interface. The value is what systemd-networkd
// compares ID_NET_MANAGED_BY with; any other name means "not networkd".
const (
	ManagerNetworkd = "io.systemd.Network"
	ManagerCNI      = "cni"
)

// Decision is who manages an interface, remembered per instance and
// interface name. MAC says which ENI the decision was made for: a name
// reused by another ENI (one detached, another attached) is decided anew.
type Decision struct {
	MAC     string `json:"mac,omitempty"`
	Manager string `json:"manager"`
}

// Decide returns the decision for the interface with the given MAC: the
// remembered one when it was made for this MAC, else networkd before the
// run phase has started (runStarted false: interfaces present at boot) and
// the VPC CNI after it (ENIs the CNI attaches). fresh reports a new
// decision, to be remembered.
func Decide(remembered *Decision, mac string, runStarted bool) (d Decision, fresh bool) {
	if remembered != nil && (remembered.MAC == "" || strings.EqualFold(remembered.MAC, mac)) {
		return *remembered, false
	}
	if runStarted {
		return Decision{MAC: mac, Manager: ManagerCNI}, true
	}
	return Decision{MAC: mac, Manager: ManagerNetworkd}, true
}

// ParseDecision reads a remembered decision: nodeboot's JSON, or nodeadm's
// older plain manager name (which applies to any MAC). ok is false for
// anything else.
func ParseDecision(data []byte) (Decision, bool) {
	text := strings.TrimSpace(string(data))
	var d Decision
	if json.Unmarshal([]byte(text), &d) == nil && knownManager(d.Manager) {
		return d, true
	}
	if knownManager(text) {
		return Decision{Manager: text}, true
	}
	return Decision{}, false
}

func knownManager(m string) bool { return m == ManagerNetworkd || m == ManagerCNI }

// Encode is the remembered form of d.
func (d Decision) Encode() []byte {
	b, _ := json.Marshal(d) // two strings cannot fail to encode
	return append(b, '\n')
}
