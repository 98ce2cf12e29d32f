package access

import (
	"context"
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdkas "github.com/aws/aws-sdk-go-v2/service/autoscaling"
	sdkec2 "github.com/aws/aws-sdk-go-v2/service/ec2"
	sdkeks "github.com/aws/aws-sdk-go-v2/service/eks"
	sdkiam "github.com/aws/aws-sdk-go-v2/service/iam"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

const nodeConfigUserData = `MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: application/node.eks.aws

apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  cluster:
    name: prod
  kubelet:
    config:
      maxPods: 58
--//--
`

func sdkConfig() aws.Config {
	return aws.Config{Region: "us-west-2", Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: "AKID", SecretAccessKey: "secret"}, nil
	})}
}

// TestResolveAutoScalingGroup resolves groups through the real SDK clients
// and the EC2, IAM and Auto Scaling stubs.
func TestResolveAutoScalingGroup(t *testing.T) {
	ec2 := awstest.NewEC2(t)
	iam := awstest.NewIAM(t)
	asg := awstest.NewAutoScaling(t, ec2, awstest.GroupHooks{})
	ec2.AddLaunchTemplate(awstest.LaunchTemplate{ID: "lt-0a1b2c3d", Name: "linux", InstanceType: "m5.large", ImageID: "ami-0123456789abcdef0",
		IAMInstanceProfileARN: "arn:aws:iam::111122223333:instance-profile/eks/linux-profile",
		UserData:              base64.StdEncoding.EncodeToString([]byte(nodeConfigUserData))})
	ec2.AddLaunchTemplate(awstest.LaunchTemplate{ID: "lt-0e0f0a0b", Name: "windows", InstanceType: "m5.large", ImageID: "ami-0123456789abcdef1",
		IAMInstanceProfileName: "windows-profile",
		UserData:               base64.StdEncoding.EncodeToString([]byte("<powershell>\n& $EKSBootstrapScriptFile -EKSClusterName prod\n</powershell>"))})
	ec2.AddLaunchTemplate(awstest.LaunchTemplate{ID: "lt-0c0c0c0c", Name: "noprofile", InstanceType: "m5.large", ImageID: "ami-0123456789abcdef1"})
	iam.AddInstanceProfile(awstest.InstanceProfile{Name: "linux-profile", Path: "/eks/", Account: "111122223333", RoleARNs: []string{"arn:aws:iam::111122223333:role/eks/linux-nodes"}})
	iam.AddInstanceProfile(awstest.InstanceProfile{Name: "windows-profile", Account: "111122223333", RoleARNs: []string{"arn:aws:iam::111122223333:role/windows-nodes"}})
	for _, g := range []awstest.AutoScalingGroup{
		{Name: "linux", Zones: []string{"us-west-2a"}, LaunchTemplateID: "lt-0a1b2c3d", LaunchTemplateVersion: "$Latest"},
		{Name: "windows", Zones: []string{"us-west-2a"}, LaunchTemplateID: "lt-0e0f0a0b", LaunchTemplateVersion: "1"},
		{Name: "noprofile", Zones: []string{"us-west-2a"}, LaunchTemplateID: "lt-0c0c0c0c", LaunchTemplateVersion: "1"},
	} {
		if err := asg.CreateGroup(g); err != nil {
			t.Fatal(err)
		}
	}
	cfg := sdkConfig()
	r := Resolver{
		AutoScaling: sdkas.NewFromConfig(cfg, func(o *sdkas.Options) { o.BaseEndpoint = aws.String(asg.URL) }),
		EC2:         sdkec2.NewFromConfig(cfg, func(o *sdkec2.Options) { o.BaseEndpoint = aws.String(ec2.URL) }),
		IAM:         sdkiam.NewFromConfig(cfg, func(o *sdkiam.Options) { o.BaseEndpoint = aws.String(iam.URL) }),
	}
	linux := r.AutoScalingGroup(t.Context(), "linux")
	if linux.Err != nil || linux.RoleARN != "arn:aws:iam::111122223333:role/eks/linux-nodes" || linux.Windows || linux.MaxPods["m5.large"] != 58 {
		t.Errorf("linux group = %+v (%v)", linux, linux.Err)
	}
	win := r.AutoScalingGroup(t.Context(), "windows")
	if win.Err != nil || win.RoleARN != "arn:aws:iam::111122223333:role/windows-nodes" || !win.Windows || win.MaxPods["m5.large"] != 9 {
		t.Errorf("windows group = %+v (%v)", win, win.Err)
	}
	if g := r.AutoScalingGroup(t.Context(), "noprofile"); g.Err == nil || !strings.Contains(g.Err.Error(), "no IAM instance profile") {
		t.Errorf("group without a profile: %v", g.Err)
	}
	if g := r.AutoScalingGroup(t.Context(), "missing"); g.Err == nil || !strings.Contains(g.Err.Error(), `no Auto Scaling group "missing"`) {
		t.Errorf("missing group: %v", g.Err)
	}
}

// TestGather reads a cluster from a fake API server and the EKS stub.
func TestGather(t *testing.T) {
	kube := fakeKube{
		configMaps: map[string]*corev1.ConfigMap{
			"aws-auth":       {Data: map[string]string{"mapRoles": nodeEntry(linuxRole)}},
			"amazon-vpc-cni": {Data: map[string]string{"enable-windows-ipam": "true"}},
		},
		daemonSet: &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "aws-node", Env: []corev1.EnvVar{{Name: "ENABLE_PREFIX_DELEGATION", Value: "true"}}}}}}}},
		nodes: map[string][]corev1.Node{"kubernetes.io/os=linux": {{ObjectMeta: metav1.ObjectMeta{Name: "a"}}}},
	}
	eks := awstest.NewEKS(t)
	eks.AddCluster(awstest.Cluster{Name: "prod", AuthenticationMode: awstest.AuthModeAPIAndConfigMap, IPFamily: "ipv4"})
	eks.AddAccessEntry("prod", awstest.AccessEntry{PrincipalARN: winRole, Type: "EC2_WINDOWS", Username: "system:node:{{EC2PrivateDNSName}}"})
	client := sdkeks.NewFromConfig(sdkConfig(), func(o *sdkeks.Options) { o.BaseEndpoint = aws.String(eks.URL) })
	c := Gatherer{Kube: kube, EKS: client, Name: "prod", Region: "us-west-2"}.Gather(t.Context())
	if !c.AWSAuthFound || c.AWSAuth["mapRoles"] == "" || c.Mode != ModeAPIAndConfigMap || c.IPFamily != "ipv4" || c.LinuxNodes != 1 ||
		!c.CNI.envTrue("ENABLE_PREFIX_DELEGATION") || c.CNI.ConfigMap["enable-windows-ipam"] != "true" ||
		len(c.Entries) != 1 || c.Entries[0].Type != "EC2_WINDOWS" || c.ModeErr != nil || c.EntriesErr != nil {
		t.Errorf("gathered %+v", c)
	}
	c = Gatherer{Kube: fakeKube{}, Name: "prod"}.Gather(t.Context())
	if c.AWSAuthFound || c.Mode != "" || c.ModeErr == nil {
		t.Errorf("without aws-auth and EKS: %+v", c)
	}
}

func TestPlanFix(t *testing.T) {
	linux := Group{Name: "linux", RoleARN: linuxRole}
	windows := Group{Name: "windows", RoleARN: winRole, Windows: true}
	existing := "- rolearn: arn:aws:iam::111122223333:role/admins\n  username: admin\n  groups:\n    - system:masters\n"
	t.Run("aws-auth: append, keep every byte", func(t *testing.T) {
		c := Cluster{AWSAuth: map[string]string{"mapRoles": existing}, AWSAuthFound: true, LinuxNodes: 1, CNI: readyCNI()}
		p, err := PlanFix(c, Check(c, []Group{linux, windows}), ViaAuto)
		if err != nil || p.Via != ViaAWSAuth || p.AWSAuth == nil || len(p.AWSAuth.Added) != 2 {
			t.Fatalf("plan %+v, %v", p, err)
		}
		if !strings.HasPrefix(p.AWSAuth.After, existing) || !strings.Contains(p.AWSAuth.After, "    - eks:kube-proxy-windows\n") {
			t.Errorf("after:\n%s", p.AWSAuth.After)
		}
		after := Check(Cluster{AWSAuth: map[string]string{"mapRoles": p.AWSAuth.After}, LinuxNodes: 1, CNI: readyCNI()}, []Group{linux, windows})
		if after.Failed() {
			t.Errorf("the fixed aws-auth still fails:\n%+v", after)
		}
		diff := p.AWSAuth.Diff()
		if !strings.Contains(diff, "@@ -2,3 +2,14 @@\n   username: admin\n   groups:\n     - system:masters\n+- rolearn: "+linuxRole) {
			t.Errorf("diff:\n%s", diff)
		}
	})
	t.Run("indented list", func(t *testing.T) {
		c := Cluster{AWSAuth: map[string]string{"mapRoles": "    - rolearn: " + winRole + "\n      username: x\n"}, AWSAuthFound: true}
		p, err := PlanFix(c, Check(c, []Group{linux}), ViaAWSAuth)
		if err != nil || !strings.Contains(p.AWSAuth.After, "\n    - rolearn: "+linuxRole+"\n      username: system:node:{{EC2PrivateDNSName}}") {
			t.Fatalf("plan %+v, %v", p.AWSAuth, err)
		}
	})
	t.Run("an existing wrong entry is shadowed, not rewritten", func(t *testing.T) {
		c := Cluster{AWSAuth: map[string]string{"mapRoles": nodeEntry(linuxRole)}, AWSAuthFound: true}
		p, err := PlanFix(c, Check(c, []Group{linux}), ViaAWSAuth)
		if err != nil || !strings.HasPrefix(p.AWSAuth.After, nodeEntry(linuxRole)) || len(p.AWSAuth.Shadowed) != 1 {
			t.Fatalf("plan %+v, %v", p.AWSAuth, err)
		}
	})
	t.Run("unparsable aws-auth is refused", func(t *testing.T) {
		c := Cluster{AWSAuth: map[string]string{"mapRoles": "- rolearn: x\n bad"}, AWSAuthFound: true}
		if _, err := PlanFix(c, Check(c, []Group{linux}), ViaAWSAuth); err != ErrUnparsable {
			t.Errorf("err = %v, want ErrUnparsable", err)
		}
	})
	t.Run("access entries when the mode has the API", func(t *testing.T) {
		c := Cluster{Mode: ModeAPI, LinuxNodes: 1, CNI: readyCNI()}
		p, err := PlanFix(c, Check(c, []Group{linux, windows}), ViaAuto)
		want := []AccessEntry{{PrincipalARN: linuxRole, Type: "EC2_LINUX"}, {PrincipalARN: winRole, Type: "EC2_WINDOWS"}}
		if err != nil || p.Via != ViaAccessEntries || !slices.Equal(entryKeys(p.Entries), entryKeys(want)) || p.AWSAuth != nil || p.Migration != nil {
			t.Fatalf("plan %+v, %v", p, err)
		}
	})
	t.Run("migration preview from CONFIG_MAP", func(t *testing.T) {
		c := Cluster{Mode: ModeConfigMap, AWSAuth: map[string]string{"mapRoles": existing + nodeEntry(winRole, "system:bootstrappers", "system:nodes", "eks:kube-proxy-windows")}}
		p, err := PlanFix(c, Check(c, []Group{linux}), ViaAccessEntries)
		if err != nil || p.Migration == nil || len(p.Migration.FromAWSAuth) != 1 || p.Migration.FromAWSAuth[0].Type != "EC2_WINDOWS" ||
			len(p.Migration.ByHand) != 1 || !strings.Contains(p.Migration.ByHand[0], "system: groups") || len(p.Entries) != 1 {
			t.Fatalf("plan %+v, %v", p, err)
		}
	})
	t.Run("a group's entry replaces the copy of its aws-auth entry", func(t *testing.T) {
		c := Cluster{Mode: ModeConfigMap, LinuxNodes: 1, CNI: readyCNI(), AWSAuth: map[string]string{"mapRoles": nodeEntry(winRole, "system:bootstrappers", "system:nodes")}}
		p, err := PlanFix(c, Check(c, []Group{windows}), ViaAccessEntries)
		if err != nil || len(p.Migration.FromAWSAuth) != 0 || len(p.Entries) != 1 || p.Entries[0].Type != "EC2_WINDOWS" {
			t.Fatalf("plan %+v, %v", p, err)
		}
	})
	t.Run("what the fix does not touch", func(t *testing.T) {
		c := Cluster{AWSAuth: map[string]string{"mapRoles": nodeEntry(winRole, "system:bootstrappers", "system:nodes", "eks:kube-proxy-windows")}}
		p, err := PlanFix(c, Check(c, []Group{windows}), ViaAuto)
		if err != nil || !p.Empty() || len(p.Unfixable) != 2 {
			t.Fatalf("plan %+v, %v", p, err)
		}
	})
}

func entryKeys(es []AccessEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Type+" "+e.PrincipalARN)
	}
	return out
}

// fakeKube answers the check's three reads from memory (client-go's fake
// clientset would compile every API group's fake client for this).
type fakeKube struct {
	configMaps map[string]*corev1.ConfigMap
	daemonSet  *appsv1.DaemonSet
	nodes      map[string][]corev1.Node
}

func (f fakeKube) ConfigMap(_ context.Context, _, name string) (*corev1.ConfigMap, error) {
	if cm, ok := f.configMaps[name]; ok {
		return cm, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, name)
}

func (f fakeKube) DaemonSet(_ context.Context, _, name string) (*appsv1.DaemonSet, error) {
	if f.daemonSet != nil {
		return f.daemonSet, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: "apps", Resource: "daemonsets"}, name)
}

func (f fakeKube) Nodes(_ context.Context, selector string) ([]corev1.Node, error) {
	return f.nodes[selector], nil
}
