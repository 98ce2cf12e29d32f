package autoscaling

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdkasgtypes "github.com/aws/aws-sdk-go-v2/service/autoscaling/types"
	sdkec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
)

// tagLaunchTemplateVersion is the tag EC2 puts on every instance launched
// from a launch template: the version number it was launched from.
const tagLaunchTemplateVersion = "aws:ec2launchtemplate:version"

// describeInstancesBatch bounds the instance IDs of one DescribeInstances call.
const describeInstancesBatch = 200

func groupOf(g sdkasgtypes.AutoScalingGroup) Group {
	out := Group{
		Name:                 aws.ToString(g.AutoScalingGroupName),
		MinSize:              aws.ToInt32(g.MinSize),
		MaxSize:              aws.ToInt32(g.MaxSize),
		Desired:              aws.ToInt32(g.DesiredCapacity),
		Zones:                g.AvailabilityZones,
		MixedInstancesPolicy: g.MixedInstancesPolicy != nil,
	}
	if lt := g.LaunchTemplate; lt != nil {
		out.LaunchTemplate = &LaunchTemplate{ID: aws.ToString(lt.LaunchTemplateId), Name: aws.ToString(lt.LaunchTemplateName), Version: aws.ToString(lt.Version)}
	}
	for _, in := range g.Instances {
		inst := Instance{
			ID:             aws.ToString(in.InstanceId),
			Zone:           aws.ToString(in.AvailabilityZone),
			LifecycleState: string(in.LifecycleState),
			HealthStatus:   aws.ToString(in.HealthStatus),
		}
		if lt := in.LaunchTemplate; lt != nil {
			inst.LaunchTemplateID = aws.ToString(lt.LaunchTemplateId)
			inst.LaunchTemplateVersion = aws.ToString(lt.Version)
		}
		out.Instances = append(out.Instances, inst)
	}
	return out
}

// isSymbolic reports whether a version setting is "$Latest" or "$Default"
// rather than a number.
func isSymbolic(v string) bool { return strings.HasPrefix(v, "$") }

// resolveInstanceVersions replaces symbolic versions ("$Latest",
// "$Default": what the group was set to when the instance launched) by the
// number EC2 tagged the instance with.
func (c *Client) resolveInstanceVersions(ctx context.Context, instances []Instance) error {
	var ids []string
	index := map[string]int{}
	for i, in := range instances {
		if in.LaunchTemplateID != "" && isSymbolic(in.LaunchTemplateVersion) {
			ids = append(ids, in.ID)
			index[in.ID] = i
		}
	}
	for start := 0; start < len(ids); start += describeInstancesBatch {
		batch := ids[start:min(start+describeInstancesBatch, len(ids))]
		out, err := c.ec2.DescribeInstances(ctx, &sdkec2.DescribeInstancesInput{InstanceIds: batch})
		if err != nil {
			return apiError("ec2 DescribeInstances", err)
		}
		for _, r := range out.Reservations {
			for _, in := range r.Instances {
				for _, tag := range in.Tags {
					if aws.ToString(tag.Key) == tagLaunchTemplateVersion {
						instances[index[aws.ToString(in.InstanceId)]].LaunchTemplateVersion = aws.ToString(tag.Value)
					}
				}
			}
		}
	}
	for _, id := range ids {
		if v := instances[index[id]].LaunchTemplateVersion; isSymbolic(v) {
			return fmt.Errorf("instance %s: launch-template version %q and no %s tag", id, v, tagLaunchTemplateVersion)
		}
	}
	return nil
}

func containsFold(s, substr string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(substr))
}
