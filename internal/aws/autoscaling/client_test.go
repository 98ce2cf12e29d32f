package autoscaling

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/aws/awsconfig/sdkdefault"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// world is an EC2 and an Auto Scaling stub reached by the real SDK through
// AWS_ENDPOINT_URL_EC2 and AWS_ENDPOINT_URL_AUTO_SCALING.
type world struct {
	ec2    *awstest.EC2
	asg    *awstest.AutoScaling
	client *Client

	mu         sync.Mutex
	inService  []string
	terminated []string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	awstest.IsolateEnv(t)
	w := &world{ec2: awstest.NewEC2(t)}
	w.asg = awstest.NewAutoScaling(t, w.ec2, awstest.GroupHooks{
		InService: func(in awstest.GroupInstance) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.inService = append(w.inService, in.ID)
		},
		Terminated: func(in awstest.GroupInstance) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.terminated = append(w.terminated, in.ID)
		},
	})
	t.Setenv("AWS_ENDPOINT_URL_EC2", w.ec2.URL)
	t.Setenv("AWS_ENDPOINT_URL_AUTO_SCALING", w.asg.URL)
	cfg, err := sdkdefault.Load(t.Context(), awsconfig.Options{
		Region: "us-west-2", MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	w.client = New(cfg)
	w.ec2.AddLaunchTemplate(awstest.LaunchTemplate{ID: "lt-0abc", Name: "workers", ImageID: "ami-00000001", InstanceType: "m5.large"})
	if err := w.asg.CreateGroup(awstest.AutoScalingGroup{
		Name: "workers", Zones: []string{"us-west-2a", "us-west-2b", "us-west-2c"},
		MinSize: 3, MaxSize: 6, Desired: 6, LaunchTemplateID: "lt-0abc", LaunchTemplateVersion: "$Latest",
	}); err != nil {
		t.Fatal(err)
	}
	return w
}

func versions(g Group) map[string]int {
	out := map[string]int{}
	for _, in := range g.Instances {
		out[in.LaunchTemplateVersion]++
	}
	return out
}

func zones(g Group) map[string]int {
	out := map[string]int{}
	for _, in := range g.Instances {
		out[in.Zone]++
	}
	return out
}

func TestDescribeGroupResolvesSymbolicVersions(t *testing.T) {
	w := newWorld(t)
	g, err := w.client.DescribeGroup(t.Context(), "workers")
	if err != nil {
		t.Fatal(err)
	}
	if g.Name != "workers" || g.MinSize != 3 || g.MaxSize != 6 || g.Desired != 6 {
		t.Errorf("group = %+v", g)
	}
	if g.LaunchTemplate == nil || *g.LaunchTemplate != (LaunchTemplate{ID: "lt-0abc", Version: "$Latest"}) {
		t.Errorf("launch template = %+v, want lt-0abc $Latest", g.LaunchTemplate)
	}
	if got := versions(g); len(got) != 1 || got["1"] != 6 {
		t.Errorf("instance versions = %v, want 6 × \"1\" (from the %s tag)", got, tagLaunchTemplateVersion)
	}
	if got := zones(g); got["us-west-2a"] != 2 || got["us-west-2b"] != 2 || got["us-west-2c"] != 2 {
		t.Errorf("instances per zone = %v, want 2 each", got)
	}
	if n := w.ec2.Calls(awstest.ActionDescribeInstances); n != 1 {
		t.Errorf("%d DescribeInstances calls, want 1 (one batch for the symbolic versions)", n)
	}
	if _, err := w.client.DescribeGroup(t.Context(), "missing"); !errors.Is(err, ErrGroupNotFound) {
		t.Errorf("DescribeGroup(missing) = %v, want ErrGroupNotFound", err)
	}
}

func TestCreateVersionIsIdempotentPerToken(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	v, err := w.client.CreateVersion(ctx, "lt-0abc", "1", "ami-00000002", "rollout r1", "token-r1")
	if err != nil || v != "2" {
		t.Fatalf("CreateVersion = %q, %v; want 2", v, err)
	}
	again, err := w.client.CreateVersion(ctx, "lt-0abc", "1", "ami-00000002", "rollout r1", "token-r1")
	if err != nil || again != "2" {
		t.Fatalf("CreateVersion retried with the same token = %q, %v; want the same version 2", again, err)
	}
	if _, err := w.client.CreateVersion(ctx, "lt-0abc", "1", "ami-00000003", "rollout r1", "token-r1"); err == nil {
		t.Errorf("CreateVersion with a reused token and another AMI succeeded, want IdempotentParameterMismatch")
	}
	vs := w.ec2.LaunchTemplateVersions("lt-0abc")
	if len(vs) != 2 || vs[1].SourceVersion != 1 || vs[1].Data.ImageID != "ami-00000002" || vs[1].Data.InstanceType != "m5.large" {
		t.Errorf("versions = %+v, want v2 from v1 with only the AMI changed", vs)
	}
	for _, tc := range []struct{ in, want string }{{"$Latest", "2"}, {"$Default", "1"}, {"2", "2"}} {
		if got, err := w.client.ResolveVersion(ctx, "lt-0abc", tc.in); err != nil || got != tc.want {
			t.Errorf("ResolveVersion(%s) = %q, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	if _, err := w.client.ResolveVersion(ctx, "lt-0abc", "9"); err == nil {
		t.Errorf("ResolveVersion(9) succeeded for a missing version")
	}
}

func TestUpdateAndTerminate(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	if _, err := w.client.CreateVersion(ctx, "lt-0abc", "1", "ami-00000002", "", "t"); err != nil {
		t.Fatal(err)
	}
	err := w.client.UpdateGroup(ctx, "workers", Update{
		MaxSize: aws.Int32(9), Desired: aws.Int32(9), LaunchTemplate: &LaunchTemplate{ID: "lt-0abc", Version: "2"},
	})
	if err != nil {
		t.Fatal(err)
	}
	g, err := w.client.DescribeGroup(ctx, "workers")
	if err != nil {
		t.Fatal(err)
	}
	if got := versions(g); got["1"] != 6 || got["2"] != 3 {
		t.Fatalf("versions after surge = %v, want 6 × 1 and 3 × 2", got)
	}
	if got := zones(g); got["us-west-2a"] != 3 || got["us-west-2b"] != 3 || got["us-west-2c"] != 3 {
		t.Errorf("instances per zone = %v, want the surge balanced (3 each)", got)
	}

	old := g.Instances[0].ID
	if err := w.client.TerminateInstance(ctx, old, false); err != nil {
		t.Fatal(err)
	}
	g, _ = w.client.DescribeGroup(ctx, "workers")
	if g.Desired != 9 || len(g.Instances) != 9 || versions(g)["2"] != 4 {
		t.Errorf("after terminate without decrement: desired %d, %d instances, versions %v; want a v2 replacement", g.Desired, len(g.Instances), versions(g))
	}
	next := g.Instances[0].ID
	if err := w.client.TerminateInstance(ctx, next, true); err != nil {
		t.Fatal(err)
	}
	g, _ = w.client.DescribeGroup(ctx, "workers")
	if g.Desired != 8 || len(g.Instances) != 8 {
		t.Errorf("after terminate with decrement: desired %d, %d instances; want 8, 8", g.Desired, len(g.Instances))
	}
	if err := w.client.TerminateInstance(ctx, old, true); !errors.Is(err, ErrInstanceNotFound) {
		t.Errorf("terminating a terminated instance = %v, want ErrInstanceNotFound", err)
	}
	if err := w.client.UpdateGroup(ctx, "workers", Update{MinSize: aws.Int32(10)}); err == nil {
		t.Errorf("min size above max size accepted")
	}

	w.asg.WaitHooks()
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.inService) != 6+3+1 || !slices.Contains(w.terminated, old) || !slices.Contains(w.terminated, next) || len(w.terminated) != 2 {
		t.Errorf("hooks: %d in service, terminated %v; want 10 and [%s %s]", len(w.inService), w.terminated, old, next)
	}
}

func TestThrottlingIsRetried(t *testing.T) {
	w := newWorld(t)
	w.asg.FailNext(awstest.ActionDescribeAutoScalingGroups, awstest.AutoScalingThrottling)
	if _, err := w.client.DescribeGroup(t.Context(), "workers"); err != nil {
		t.Fatalf("DescribeGroup after one throttle: %v", err)
	}
	if n := w.asg.Calls(awstest.ActionDescribeAutoScalingGroups); n != 2 {
		t.Errorf("%d calls, want 2", n)
	}
	w.asg.FailNext(awstest.ActionTerminateInstanceInAutoScalingGroup, awstest.AutoScalingThrottling, awstest.AutoScalingThrottling, awstest.AutoScalingThrottling)
	err := w.client.TerminateInstance(t.Context(), w.asg.Instances("workers")[0].ID, false)
	if err == nil || errors.Is(err, ErrInstanceNotFound) || !strings.Contains(err.Error(), "gave up after 3 attempts") {
		t.Errorf("terminate throttled past the attempt budget = %v, want an error naming the attempts", err)
	}
}
