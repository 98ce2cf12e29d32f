package policy

import (
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Errors of InstanceKeyFor, testable with errors.Is.
var (
	// ErrNotEC2Instance: the Node's providerID names something other than
	// an EC2 instance (another cloud, a Fargate task, ...).
	ErrNotEC2Instance = errors.New("not an EC2 instance")
	// ErrMalformedProviderID: an aws:// providerID that does not parse.
	ErrMalformedProviderID = errors.New("malformed aws providerID")
)

// awsProviderScheme starts the providerID of every EC2 instance.
const awsProviderScheme = "aws://"

// maxProviderIDLen bounds the providerID parsed; real ones are about 45
// bytes, and the value comes from the node.
const maxProviderIDLen = 256

// InstanceKey names the EC2 instance behind a Node, the way the inventory
// is asked: by instance ID when the Node's spec.providerID (or its name)
// holds one, otherwise by private DNS name, which is the node name on EKS.
type InstanceKey struct {
	// ID is the instance ID, i-<8 or 17 hex digits>.
	ID string
	// PrivateDNSName is set when ID is not.
	PrivateDNSName string
}

// String returns "instance i-…" or "private DNS name …".
func (k InstanceKey) String() string {
	if k.ID != "" {
		return "instance " + k.ID
	}
	return "private DNS name " + k.PrivateDNSName
}

// nodeInstance is what a Node says about its EC2 instance.
type nodeInstance struct {
	key InstanceKey
	// zone is the availability zone the providerID names, if any.
	zone string
}

// InstanceKeyFor returns how to look up the EC2 instance behind node. The
// providerID is written by the kubelet itself, so Decide later checks that
// the instance found really is this node's (its private DNS name or ID is
// the node name).
func InstanceKeyFor(node *corev1.Node) (InstanceKey, error) {
	ni, err := instanceOf(node)
	return ni.key, err
}

// instanceOf parses node.spec.providerID in the forms the AWS cloud provider
// accepts: aws:///<zone>/<id>, aws:////<id>, aws:///<id>, aws://<zone>/<id>
// and a bare <id>. Without a providerID, a node named like an instance ID is looked up
// by ID, any other by its name as private DNS name.
func instanceOf(node *corev1.Node) (nodeInstance, error) {
	pid := node.Spec.ProviderID
	switch {
	case pid == "" && isInstanceID(node.Name):
		return nodeInstance{key: InstanceKey{ID: node.Name}}, nil
	case pid == "":
		return nodeInstance{key: InstanceKey{PrivateDNSName: node.Name}}, nil
	case len(pid) > maxProviderIDLen:
		return nodeInstance{}, fmt.Errorf("%w: providerID of %d bytes", ErrMalformedProviderID, len(pid))
	case isInstanceID(pid):
		return nodeInstance{key: InstanceKey{ID: pid}}, nil
	case !strings.HasPrefix(pid, awsProviderScheme):
		return nodeInstance{}, fmt.Errorf("%w: providerID %q is not aws://", ErrNotEC2Instance, pid)
	}
	host, path, _ := strings.Cut(strings.TrimPrefix(pid, awsProviderScheme), "/")
	parts := strings.Split(path, "/")
	var zone, id string
	switch {
	case host != "" && len(parts) == 1: // aws://<zone>/<id>
		zone, id = host, parts[0]
	case host == "" && len(parts) == 2: // aws:///<zone>/<id>, aws:////<id>
		zone, id = parts[0], parts[1]
	case host == "" && len(parts) == 1: // aws:///<id>
		id = parts[0]
	default:
		return nodeInstance{}, fmt.Errorf("%w: providerID %q is not aws:///<zone>/<instance ID>", ErrNotEC2Instance, pid)
	}
	if !isInstanceID(id) {
		return nodeInstance{}, fmt.Errorf("%w: providerID %q names %q, not an instance ID", ErrNotEC2Instance, pid, id)
	}
	if !isZoneName(zone) {
		return nodeInstance{}, fmt.Errorf("%w: providerID %q has availability zone %q", ErrMalformedProviderID, pid, zone)
	}
	return nodeInstance{key: InstanceKey{ID: id}, zone: zone}, nil
}

// isInstanceID reports whether s is an EC2 instance ID: i- and 8 or 17
// lower-case hex digits.
func isInstanceID(s string) bool {
	hex, ok := strings.CutPrefix(s, "i-")
	if !ok || (len(hex) != 8 && len(hex) != 17) {
		return false
	}
	for _, r := range hex {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

// isZoneName reports whether s can be an availability zone name (empty
// allowed): lower-case letters, digits and dashes, such as us-west-2a or
// us-west-2-lax-1a.
func isZoneName(s string) bool {
	if len(s) > 64 {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return false
		}
	}
	return true
}
