// Package nodegroup is the rollout's view of a node group: the State the
// planner reads and the Group interface the executor changes it through.
// ASG implements it for an EC2 Auto Scaling group with a launch template.
package nodegroup

import (
	"context"
	"errors"
	"strings"
)

// Lifecycle states of an instance that matter to the rollout (Auto
// Scaling's names); any other state counts as leaving the group.
const (
	LifecyclePending   = "Pending"
	LifecycleInService = "InService"
)

// ErrGroupGone is returned by Describe when no group has the name (it was
// deleted).
var ErrGroupGone = errors.New("node group not found")

// ErrInstanceGone is returned by TerminateInstance when the instance is no
// longer in the group (already terminated): the termination is done.
var ErrInstanceGone = errors.New("instance is not in the group")

// State is a node group as one read saw it.
type State struct {
	Name                      string
	MinSize, MaxSize, Desired int32
	Zones                     []string
	// LaunchTemplate is the template and version setting new instances
	// launch from; nil when the group has none (launch configuration or
	// mixed instances policy), which the rollout cannot handle.
	LaunchTemplate *LaunchTemplate
	Instances      []Instance
}

// LaunchTemplate is a launch template with a version setting: a number,
// "$Latest" or "$Default".
type LaunchTemplate struct {
	ID, Name, Version string
}

// Instance is one member of the group.
type Instance struct {
	ID   string
	Zone string
	// Version is the launch-template version number it was launched from.
	Version        string
	LifecycleState string
}

// InService reports whether the instance is running as a group member.
func (i Instance) InService() bool { return i.LifecycleState == LifecycleInService }

// Instance returns the instance with the ID, if the group has it.
func (s State) Instance(id string) (Instance, bool) {
	for _, in := range s.Instances {
		if in.ID == id {
			return in, true
		}
	}
	return Instance{}, false
}

// Sizes are the group's capacity bounds; nil fields are left unchanged.
type Sizes struct {
	MinSize, MaxSize, Desired *int32
}

// Group reads and changes one node group. Every method is idempotent.
type Group interface {
	// Describe reads the group; a group that does not exist yields an
	// error wrapping ErrGroupGone.
	Describe(ctx context.Context) (State, error)
	// ResolveVersion turns a version setting ("$Latest", "$Default", "7")
	// of the group's launch template into a number.
	ResolveVersion(ctx context.Context, templateID, version string) (string, error)
	// CreateVersion creates a launch-template version from sourceVersion
	// with only the image replaced and returns its number; the same
	// clientToken always yields the same version.
	CreateVersion(ctx context.Context, templateID, sourceVersion, imageID, clientToken string) (string, error)
	// SetSizes changes the capacity bounds.
	SetSizes(ctx context.Context, s Sizes) error
	// SetLaunchTemplate points the group at a launch-template version.
	SetLaunchTemplate(ctx context.Context, lt LaunchTemplate) error
	// TerminateInstance terminates an instance; decrement lowers the
	// desired capacity, otherwise the group launches a replacement. An
	// instance already gone yields an error wrapping ErrInstanceGone.
	TerminateInstance(ctx context.Context, id string, decrement bool) error
}

// InstanceIDFromProviderID returns the EC2 instance ID of a Node's
// spec.providerID ("aws:///us-west-2a/i-0123456789abcdef0"), or "".
func InstanceIDFromProviderID(providerID string) string {
	rest, ok := strings.CutPrefix(providerID, "aws://")
	if !ok {
		return ""
	}
	id := rest[strings.LastIndexByte(rest, '/')+1:]
	if !strings.HasPrefix(id, "i-") {
		return ""
	}
	return id
}

// IsVersionNumber reports whether v is a launch-template version number.
func IsVersionNumber(v string) bool {
	if v == "" || v[0] == '0' {
		return false
	}
	for _, r := range v {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
