package access

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdkas "github.com/aws/aws-sdk-go-v2/service/autoscaling"
	astypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
	sdkec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	sdkiam "github.com/aws/aws-sdk-go-v2/service/iam"

	nodegroupv1 "github.com/nodeboot/nodeboot/api/nodegroup/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/config/awsauth"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/eni"
	"github.com/nodeboot/nodeboot/internal/config/fragment"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/maxpods"
	"github.com/nodeboot/nodeboot/internal/config/merge"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// The AWS calls role resolution makes.
type (
	// AutoScalingAPI is DescribeAutoScalingGroups.
	AutoScalingAPI interface {
		DescribeAutoScalingGroups(ctx context.Context, in *sdkas.DescribeAutoScalingGroupsInput, optFns ...func(*sdkas.Options)) (*sdkas.DescribeAutoScalingGroupsOutput, error)
	}
	// EC2API is DescribeLaunchTemplateVersions.
	EC2API interface {
		DescribeLaunchTemplateVersions(ctx context.Context, in *sdkec2.DescribeLaunchTemplateVersionsInput, optFns ...func(*sdkec2.Options)) (*sdkec2.DescribeLaunchTemplateVersionsOutput, error)
	}
	// IAMAPI is GetInstanceProfile.
	IAMAPI interface {
		GetInstanceProfile(ctx context.Context, in *sdkiam.GetInstanceProfileInput, optFns ...func(*sdkiam.Options)) (*sdkiam.GetInstanceProfileOutput, error)
	}
)

// Resolver finds a node group's role: Auto Scaling group → launch template
// version → instance profile → role.
type Resolver struct {
	AutoScaling AutoScalingAPI
	EC2         EC2API
	IAM         IAMAPI
	// Expressions evaluates kubelet.maxPodsExpression in user data (the
	// agent's engine); without one an expression falls back to the
	// formula, as the agent does when it fails.
	Expressions maxpods.Evaluator
}

// RoleGroup is a group given by its role ARN, or by the ARN of one of its
// sessions (arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION, what `aws sts
// get-caller-identity` prints on a node), which stands for the role as the
// authenticator canonicalises it.
func RoleGroup(arn string, windows bool) Group {
	source := "--role"
	if windows {
		source = "--windows-role"
	}
	g := Group{Name: arn, Source: source, RoleARN: arn, Windows: windows}
	if role, ok := sessionRole(arn); ok {
		g.RoleARN = role
	}
	return g
}

// sessionRole returns the role of an assumed-role session ARN. STS leaves
// the role's path out of these ARNs, so they have exactly a role name and a
// session name.
func sessionRole(arn string) (string, bool) {
	kind, canonical, err := awsauth.Canonical(arn)
	if err != nil || kind != awsauth.KindAssumedRole || strings.Count(arn[strings.Index(arn, "assumed-role/"):], "/") != 2 {
		return "", false
	}
	return canonical, true
}

// AutoScalingGroup resolves an Auto Scaling group; a failure is kept in
// Group.Err.
func (r Resolver) AutoScalingGroup(ctx context.Context, name string) Group {
	g := Group{Name: name, Source: "Auto Scaling group"}
	out, err := r.AutoScaling.DescribeAutoScalingGroups(ctx, &sdkas.DescribeAutoScalingGroupsInput{AutoScalingGroupNames: []string{name}})
	if err != nil {
		g.Err = fmt.Errorf("autoscaling:DescribeAutoScalingGroups: %w", err)
		return g
	}
	if len(out.AutoScalingGroups) == 0 {
		g.Err = fmt.Errorf("no Auto Scaling group %q", name)
		return g
	}
	asg := out.AutoScalingGroups[0]
	spec, overrides := launchTemplateOf(asg)
	if spec == nil {
		g.Err = errors.New("the group has no launch template (launch configurations are not supported)")
		return g
	}
	r.fromLaunchTemplate(ctx, &g, spec, overrides)
	return g
}

// launchTemplateOf returns the group's launch template and the instance
// types a mixed instances policy overrides it with.
func launchTemplateOf(asg astypes.AutoScalingGroup) (*astypes.LaunchTemplateSpecification, []string) {
	if asg.LaunchTemplate != nil {
		return asg.LaunchTemplate, nil
	}
	mip := asg.MixedInstancesPolicy
	if mip == nil || mip.LaunchTemplate == nil || mip.LaunchTemplate.LaunchTemplateSpecification == nil {
		return nil, nil
	}
	var types []string
	for _, o := range mip.LaunchTemplate.Overrides {
		if t := aws.ToString(o.InstanceType); t != "" {
			types = append(types, t)
		}
	}
	return mip.LaunchTemplate.LaunchTemplateSpecification, types
}

// fromLaunchTemplate reads the launch template version's instance
// profile, instance type and user data into g.
func (r Resolver) fromLaunchTemplate(ctx context.Context, g *Group, spec *astypes.LaunchTemplateSpecification, types []string) {
	version := aws.ToString(spec.Version)
	if version == "" {
		version = "$Default"
	}
	in := &sdkec2.DescribeLaunchTemplateVersionsInput{Versions: []string{version}}
	if id := aws.ToString(spec.LaunchTemplateId); id != "" {
		in.LaunchTemplateId = spec.LaunchTemplateId
	} else {
		in.LaunchTemplateName = spec.LaunchTemplateName
	}
	out, err := r.EC2.DescribeLaunchTemplateVersions(ctx, in)
	if err != nil || len(out.LaunchTemplateVersions) == 0 {
		g.Err = fmt.Errorf("ec2:DescribeLaunchTemplateVersions %s %s: %w", aws.ToString(spec.LaunchTemplateId)+aws.ToString(spec.LaunchTemplateName), version, err)
		return
	}
	data := out.LaunchTemplateVersions[0].LaunchTemplateData
	if data == nil || data.IamInstanceProfile == nil {
		g.Err = errors.New("the launch template has no IAM instance profile")
		return
	}
	if len(types) == 0 && data.InstanceType != "" {
		types = []string{string(data.InstanceType)}
	}
	g.InstanceTypes = types
	ud, _ := base64.StdEncoding.DecodeString(aws.ToString(data.UserData))
	g.Windows = isWindowsUserData(ud)
	g.MaxPods = r.userDataMaxPods(ud, types, g.Windows)
	g.InstanceProfileARN = aws.ToString(data.IamInstanceProfile.Arn)
	g.RoleARN, g.Err = r.profileRole(ctx, data.IamInstanceProfile.Arn, data.IamInstanceProfile.Name)
}

// profileRole returns the role inside an instance profile named by ARN or
// name.
func (r Resolver) profileRole(ctx context.Context, arn, name *string) (string, error) {
	profile := aws.ToString(name)
	if a := aws.ToString(arn); a != "" {
		profile = a[strings.LastIndex(a, "/")+1:]
	}
	out, err := r.IAM.GetInstanceProfile(ctx, &sdkiam.GetInstanceProfileInput{InstanceProfileName: aws.String(profile)})
	if err != nil {
		return "", fmt.Errorf("iam:GetInstanceProfile %s: %w", profile, err)
	}
	if out.InstanceProfile == nil || len(out.InstanceProfile.Roles) == 0 {
		return "", fmt.Errorf("instance profile %s holds no role", profile)
	}
	return aws.ToString(out.InstanceProfile.Roles[0].Arn), nil
}

// isWindowsUserData tells EKS Windows user data (a PowerShell block
// running Start-EKSBootstrap.ps1) from Linux user data.
func isWindowsUserData(ud []byte) bool {
	s := strings.ToLower(string(ud))
	return strings.Contains(s, "<powershell>") || strings.Contains(s, "start-eksbootstrap")
}

// userDataMaxPods is the max pods each instance type gets from the user
// data, whatever its format (NodeConfig documents, a bootstrap.sh call,
// Bottlerocket settings; MIME parts merged in order, as the agent merges
// them), computed by the agent's own rule (maxpods.SpecInput): the user's
// --max-pods or kubelet.config.maxPods, else an expression, else the VPC
// CNI formula with the spec's policy (prefix delegation, custom
// networking, max ENIs), IPv4 per ENI − 1 for Windows. Instance types the
// ENI table does not know are left out; Cap assumes 30 vCPUs or fewer (the
// table has no vCPU counts).
func (r Resolver) userDataMaxPods(ud []byte, types []string, windows bool) map[string]int32 {
	spec := userDataSpec(ud)
	out := map[string]int32{}
	for _, t := range types {
		l, known := eni.Lookup(t)
		in := maxpods.SpecInput(spec)
		in.Limits, in.Known, in.Evaluator = l, known, r.Expressions
		switch {
		case in.UserMaxPods > 0:
		case !known:
			continue
		case windows:
			out[t] = int32(maxpods.WindowsMaxPods(l))
			continue
		}
		res, _ := maxpods.Compute(in)
		out[t] = maxpods.Effective(spec, res)
	}
	return out
}

// userDataSpec merges what every document of the user data contributes to
// the node's configuration; undecodable parts contribute nothing (the
// agent would refuse them, which `nodeboot config check` reports).
func userDataSpec(ud []byte) hub.Spec {
	docs, _ := userdata.Split(diag.Source{URI: "launch-template://user-data"}, ud)
	var specs []hub.Spec
	for _, d := range docs {
		frags, _ := fragment.Decode(d)
		for _, f := range frags {
			specs = append(specs, f.Spec)
		}
	}
	spec, err := merge.Specs(specs...)
	if err != nil {
		return hub.Spec{}
	}
	return spec
}

// NodeGroupFile is a group described by a NodeGroup: its role is
// spec.nodeRole, else its launch template's instance profile's.
func (r Resolver) NodeGroupFile(ctx context.Context, path string, ng nodegroupv1.NodeGroup, windows bool) Group {
	g := Group{Name: ng.Metadata.Name, Source: "NodeGroup file " + path, RoleARN: ng.Spec.NodeRole, Windows: windows}
	if ng.Spec.InstanceType != "" {
		g.InstanceTypes = []string{ng.Spec.InstanceType}
		g.MaxPods = nodeGroupMaxPods(ng.Spec, windows)
	}
	if g.RoleARN != "" {
		return g
	}
	lt := ng.Spec.LaunchTemplate
	if lt == nil || r.EC2 == nil {
		g.Err = errors.New("spec.nodeRole is not set and there is no launch template to find the role in")
		return g
	}
	spec := &astypes.LaunchTemplateSpecification{LaunchTemplateId: aws.String(lt.ID), Version: aws.String(lt.Version)}
	types := g.InstanceTypes
	mp := g.MaxPods
	r.fromLaunchTemplate(ctx, &g, spec, types)
	if mp != nil {
		g.MaxPods = mp
	}
	return g
}

// nodeGroupMaxPods is the max pods the NodeGroup's policy gives its
// instance type.
func nodeGroupMaxPods(s nodegroupv1.NodeGroupSpec, windows bool) map[string]int32 {
	l, known := eni.Lookup(s.InstanceType)
	if windows && known {
		return map[string]int32{s.InstanceType: int32(maxpods.WindowsMaxPods(l))}
	}
	res, _ := maxpods.Compute(maxpods.Input{Limits: l, Known: known, UserMaxPods: s.MaxPods.Value,
		Policy: maxpods.Policy{PrefixDelegation: s.MaxPods.PrefixDelegation, CustomNetworking: s.MaxPods.CustomNetworking, MaxENIs: s.MaxPods.MaxENIs}})
	if res.Source == maxpods.SourceDefault {
		return nil
	}
	return map[string]int32{s.InstanceType: res.MaxPods}
}
