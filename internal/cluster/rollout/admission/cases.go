package admission

import (
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
)

// Case is a NodeGroupRollout and, for one the API server refuses, strings
// Check's answer contains (worded as API servers from v1.35 on word it; see
// AnswerPattern). The unit tests check them against Check; the e2e suite
// sends the rollouts to a real API server and compares its answers with
// Check's.
type Case struct {
	Name    string
	Rollout *rolloutv1.NodeGroupRollout
	Want    []string
}

// valid is a rollout the API server accepts, changed by edit.
func valid(name string, edit func(*rolloutv1.NodeGroupRolloutSpec)) *rolloutv1.NodeGroupRollout {
	ro := &rolloutv1.NodeGroupRollout{
		TypeMeta:   metav1.TypeMeta{APIVersion: rolloutv1.SchemeGroupVersion.String(), Kind: rolloutv1.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: rolloutv1.NodeGroupRolloutSpec{
			NodeGroup: rolloutv1.NodeGroupReference{AutoScalingGroupName: "eks-workers"},
		},
	}
	if edit != nil {
		edit(&ro.Spec)
	}
	return ro
}

func duration(s string) *metav1.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		// An unparseable duration cannot be built as metav1.Duration; the
		// e2e suite sends those as raw JSON.
		panic(err)
	}
	return &metav1.Duration{Duration: d}
}

// GoodRollouts are rollouts at the edges of what the API server accepts.
func GoodRollouts() []Case {
	return []Case{
		{Name: "minimal", Rollout: valid("minimal", nil)},
		{Name: "everything set", Rollout: valid("everything", func(s *rolloutv1.NodeGroupRolloutSpec) {
			s.NodeGroup = rolloutv1.NodeGroupReference{AutoScalingGroupName: "eks-workers:v2 (blue)", Region: "us-gov-west-1", Name: "workers-v2"}
			s.ImageID = "ami-0123456789abcdef0"
			s.Strategy, s.NodeOrder = rolloutv1.StrategyMinimal, rolloutv1.OrderOldest
			mu := intstr.FromString("100%")
			s.MaxUnavailable = &mu
			s.Timeouts = rolloutv1.Timeouts{Drain: duration("168h"), PostDrainWait: duration("0s"), NodeCreation: duration("1h30m"), EvictionRetryInterval: duration("1.5s")}
			s.NewNodes.Labels = map[string]rolloutv1.LabelValue{"example.com/team": "a.b_c-d", "tier": "", strings.Repeat("a", 63): rolloutv1.LabelValue(strings.Repeat("b", 63))}
		})},
		{Name: "version number", Rollout: valid("version", func(s *rolloutv1.NodeGroupRolloutSpec) { s.LaunchTemplateVersion = "123456789" })},
		{Name: "$Latest", Rollout: valid("latest", func(s *rolloutv1.NodeGroupRolloutSpec) { s.LaunchTemplateVersion = "$Latest" })},
		{Name: "a count of 100", Rollout: valid("count", func(s *rolloutv1.NodeGroupRolloutSpec) { mu := intstr.FromInt32(100); s.MaxUnavailable = &mu })},
		{Name: "an 8-digit AMI ID", Rollout: valid("ami8", func(s *rolloutv1.NodeGroupRolloutSpec) { s.ImageID = "ami-0123abcd" })},
		{Name: "a European Sovereign Cloud region", Rollout: valid("eusc", func(s *rolloutv1.NodeGroupRolloutSpec) { s.NodeGroup.Region = "eusc-de-east-1" })},
	}
}

// BadRollouts are rollouts the API server refuses, one rule each.
func BadRollouts() []Case {
	mu := func(v intstr.IntOrString) func(*rolloutv1.NodeGroupRolloutSpec) {
		return func(s *rolloutv1.NodeGroupRolloutSpec) { s.MaxUnavailable = &v }
	}
	return []Case{
		{Name: "maxUnavailable 101", Rollout: valid("mu-101", mu(intstr.FromInt32(101))),
			Want: []string{"spec.maxUnavailable: Invalid value: ", ": maxUnavailable is 1..100 or 1%..100%"}},
		{Name: "maxUnavailable 050%", Rollout: valid("mu-050", mu(intstr.FromString("050%"))),
			Want: []string{"spec.maxUnavailable: Invalid value: ", ": maxUnavailable is 1..100 or 1%..100%"}},
		{Name: "maxUnavailable 0", Rollout: valid("mu-0", mu(intstr.FromInt32(0))), Want: []string{"maxUnavailable is 1..100 or 1%..100%"}},
		{Name: "version 0", Rollout: valid("version-0", func(s *rolloutv1.NodeGroupRolloutSpec) { s.LaunchTemplateVersion = "0" }),
			Want: []string{`spec.launchTemplateVersion: Invalid value: "0": spec.launchTemplateVersion in body should match '^([1-9][0-9]{0,8}|\$Latest|\$Default)$'`}},
		{Name: "version and image", Rollout: valid("both", func(s *rolloutv1.NodeGroupRolloutSpec) { s.LaunchTemplateVersion, s.ImageID = "3", "ami-0123abcd" }),
			Want: []string{"spec: Invalid value: set at most one of launchTemplateVersion and imageID"}},
		{Name: "malformed AMI ID", Rollout: valid("ami", func(s *rolloutv1.NodeGroupRolloutSpec) { s.ImageID = "ami-0123456789abc" }),
			Want: []string{`spec.imageID: Invalid value: "ami-0123456789abc": spec.imageID in body should match`}},
		{Name: "AMI ID in upper case", Rollout: valid("ami-upper", func(s *rolloutv1.NodeGroupRolloutSpec) { s.ImageID = "ami-0123ABCD" }),
			Want: []string{`spec.imageID: Invalid value: "ami-0123ABCD"`}},
		{Name: "group name with a newline", Rollout: valid("newline", func(s *rolloutv1.NodeGroupRolloutSpec) { s.NodeGroup.AutoScalingGroupName = "eks\nworkers" }),
			Want: []string{`spec.nodeGroup.autoScalingGroupName: Invalid value: "eks\nworkers": spec.nodeGroup.autoScalingGroupName in body should match`}},
		{Name: "group name that is not a label value, without a node group name", Rollout: valid("asg-label", func(s *rolloutv1.NodeGroupRolloutSpec) {
			s.NodeGroup.AutoScalingGroupName = "eks-workers:v2"
		}), Want: []string{"spec.nodeGroup: Invalid value: name is required when autoScalingGroupName is not a label value"}},
		{Name: "node group name that is not a label value", Rollout: valid("ng-name", func(s *rolloutv1.NodeGroupRolloutSpec) { s.NodeGroup.Name = "workers/blue" }),
			Want: []string{`spec.nodeGroup.name: Invalid value: "workers/blue": spec.nodeGroup.name in body should match`}},
		{Name: "region", Rollout: valid("region", func(s *rolloutv1.NodeGroupRolloutSpec) { s.NodeGroup.Region = "US-WEST-2" }),
			Want: []string{`spec.nodeGroup.region: Invalid value: "US-WEST-2": spec.nodeGroup.region in body should match`}},
		{Name: "region without a number", Rollout: valid("region-2", func(s *rolloutv1.NodeGroupRolloutSpec) { s.NodeGroup.Region = "us-west" }),
			Want: []string{`spec.nodeGroup.region: Invalid value: "us-west"`}},
		{Name: "a drain timeout of 200h", Rollout: valid("drain-long", func(s *rolloutv1.NodeGroupRolloutSpec) { s.Timeouts.Drain = duration("200h") }),
			Want: []string{`spec.timeouts.drain: Invalid value: "200h0m0s": must be a duration from 0 to 168h, such as 90s, 15m or 1h30m`}},
		{Name: "a negative post-drain wait", Rollout: valid("negative", func(s *rolloutv1.NodeGroupRolloutSpec) { s.Timeouts.PostDrainWait = duration("-1s") }),
			Want: []string{`spec.timeouts.postDrainWait: Invalid value: "-1s": must be a duration from 0 to 168h`}},
		{Name: "a label key with a space", Rollout: valid("label-key", func(s *rolloutv1.NodeGroupRolloutSpec) {
			s.NewNodes.Labels = map[string]rolloutv1.LabelValue{"team name": "a"}
		}),
			Want: []string{`spec.newNodes.labels: Invalid value: keys must be label keys`}},
		{Name: "a label key with a long prefix", Rollout: valid("label-prefix", func(s *rolloutv1.NodeGroupRolloutSpec) {
			s.NewNodes.Labels = map[string]rolloutv1.LabelValue{strings.Repeat("a", 254) + "/x": "a"}
		}), Want: []string{"keys must be label keys"}},
		{Name: "a label value of 64 characters", Rollout: valid("label-value", func(s *rolloutv1.NodeGroupRolloutSpec) {
			s.NewNodes.Labels = map[string]rolloutv1.LabelValue{"team": rolloutv1.LabelValue(strings.Repeat("a", 64))}
		}), Want: []string{"spec.newNodes.labels.team: Too long: may not be more than 63 bytes"}},
		{Name: "a label value with a slash", Rollout: valid("label-slash", func(s *rolloutv1.NodeGroupRolloutSpec) {
			s.NewNodes.Labels = map[string]rolloutv1.LabelValue{"team": "a/b"}
		}), Want: []string{`spec.newNodes.labels.team: Invalid value: "a/b": spec.newNodes.labels.team in body should match`}},
		{Name: "a rollout name in upper case", Rollout: valid("Upper", nil),
			Want: []string{`metadata.name: Invalid value: "Upper": a lowercase RFC 1123 subdomain`}},
		{Name: "an unknown strategy", Rollout: valid("strategy", func(s *rolloutv1.NodeGroupRolloutSpec) { s.Strategy = "Fast" }),
			Want: []string{`spec.strategy: Unsupported value: "Fast": supported values: "Default", "Minimal"`}},
		{Name: "an unknown node order", Rollout: valid("order", func(s *rolloutv1.NodeGroupRolloutSpec) { s.NodeOrder = "Largest" }),
			Want: []string{`spec.nodeOrder: Unsupported value: "Largest"`}},
	}
}
