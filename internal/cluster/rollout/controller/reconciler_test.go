package controller

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/aws/awsconfig/sdkdefault"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup/asg"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// call is one API request the controller made: verb, group, resource
// (with subresource).
type call struct{ verb, group, resource string }

// harness runs the Reconciler against a fake API server (recording every
// call) and the real Auto Scaling client talking to the awstest stubs,
// whose instances become Nodes through the stub's hooks.
type harness struct {
	t      *testing.T
	client client.WithWatch
	clock  *clocktesting.FakePassiveClock
	asg    *awstest.AutoScaling
	rec    *Reconciler
	events *record.FakeRecorder

	mu    sync.Mutex
	calls map[call]int
	// refuse makes the next n evictions of a pod answer with err.
	refuse map[string]refusal
}

// refusal makes the next left evictions of a pod answer err.
type refusal struct {
	left int
	err  error
}

const groupName = "workers"

func newScheme(t *testing.T) *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, policyv1.AddToScheme, rolloutv1.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func newHarness(t *testing.T, nodes int, spec rolloutv1.NodeGroupRolloutSpec) *harness {
	t.Helper()
	h := &harness{t: t, clock: clocktesting.NewFakePassiveClock(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)),
		calls: map[call]int{}, refuse: map[string]refusal{}, events: record.NewFakeRecorder(10000)}
	scheme := newScheme(t)
	// The harness plays the cluster through client; the controller's calls
	// go through an interceptor that records them.
	h.client = fake.NewClientBuilder().WithScheme(scheme).
		WithStatusSubresource(&rolloutv1.NodeGroupRollout{}).
		WithIndex(&corev1.Pod{}, NodeNameIndex, IndexNodeName).Build()
	controllerClient := interceptor.NewClient(h.client, h.interceptors(scheme))

	awstest.IsolateEnv(t)
	ec2 := awstest.NewEC2(t)
	h.asg = awstest.NewAutoScaling(t, ec2, awstest.GroupHooks{InService: h.nodeUp, Terminated: h.nodeDown})
	t.Setenv("AWS_ENDPOINT_URL_EC2", ec2.URL)
	t.Setenv("AWS_ENDPOINT_URL_AUTO_SCALING", h.asg.URL)
	ec2.AddLaunchTemplate(awstest.LaunchTemplate{ID: "lt-0abc", Name: groupName, ImageID: "ami-00000001"})
	if err := h.asg.CreateGroup(awstest.AutoScalingGroup{Name: groupName, Zones: []string{"us-west-2a", "us-west-2b"},
		MinSize: 1, MaxSize: int32(nodes), Desired: int32(nodes), LaunchTemplateID: "lt-0abc", LaunchTemplateVersion: "1"}); err != nil {
		t.Fatal(err)
	}
	h.asg.WaitHooks()
	h.rec = &Reconciler{
		Client: controllerClient, Recorder: h.events, Clock: h.clock, GroupRefresh: time.Second,
		Groups: &asg.Opener{Load: func(ctx context.Context, region string) (aws.Config, error) {
			return sdkdefault.Load(ctx, awsconfig.Options{Region: "us-west-2", MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond})
		}},
	}
	spec.NodeGroup = rolloutv1.NodeGroupReference{AutoScalingGroupName: groupName}
	ro := &rolloutv1.NodeGroupRollout{ObjectMeta: metav1.ObjectMeta{Name: "r1", UID: "uid-r1", Generation: 1}, Spec: spec}
	if err := h.client.Create(t.Context(), ro); err != nil {
		t.Fatal(err)
	}
	return h
}

// resourceOf names the API resource of an object or list.
func resourceOf(t *testing.T, scheme *runtime.Scheme, obj runtime.Object) (group, resource string) {
	gvk, err := apiutil.GVKForObject(obj, scheme)
	if err != nil {
		t.Errorf("kind of %T: %v", obj, err)
		return "", ""
	}
	kind := strings.TrimSuffix(gvk.Kind, "List")
	return gvk.Group, strings.ToLower(kind) + "s"
}

// interceptors record every call and refuse evictions on demand.
func (h *harness) interceptors(scheme *runtime.Scheme) interceptor.Funcs {
	note := func(verb string, obj runtime.Object, sub string) {
		group, res := resourceOf(h.t, scheme, obj)
		if sub != "" {
			res += "/" + sub
		}
		h.mu.Lock()
		h.calls[call{verb, group, res}]++
		h.mu.Unlock()
	}
	return interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			note("get", obj, "")
			return c.Get(ctx, key, obj, opts...)
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			note("list", list, "")
			return c.List(ctx, list, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			note("patch", obj, "")
			return c.Patch(ctx, obj, patch, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			note("delete", obj, "")
			return c.Delete(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			note("update", obj, "")
			return c.Update(ctx, obj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			note("update", obj, sub)
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			note("patch", obj, sub)
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
		SubResourceCreate: func(ctx context.Context, c client.Client, sub string, obj, subObj client.Object, opts ...client.SubResourceCreateOption) error {
			note("create", obj, sub)
			h.mu.Lock()
			r := h.refuse[obj.GetName()]
			refused := r.left > 0
			if refused {
				r.left--
				h.refuse[obj.GetName()] = r
			}
			h.mu.Unlock()
			if refused {
				return r.err
			}
			return c.SubResource(sub).Create(ctx, obj, subObj, opts...)
		},
	}
}

// nodeUp creates the Node of an instance that entered service: Ready, with
// the managed-node-group labels of its launch-template version.
func (h *harness) nodeUp(in awstest.GroupInstance) {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: in.PrivateDNSName, Labels: map[string]string{
			plan.LabelNodeGroup: groupName, plan.LabelSourceLaunchTemplateID: in.LaunchTemplateID,
			plan.LabelSourceLaunchTemplateVersion: fmt.Sprint(in.ResolvedVersion), corev1.LabelTopologyZone: in.Zone,
		}},
		Spec:   corev1.NodeSpec{ProviderID: "aws:///" + in.Zone + "/" + in.ID},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}
	if err := h.client.Create(context.Background(), n); err != nil {
		h.t.Errorf("create node: %v", err)
	}
}

// nodeDown deletes the Node of a terminated instance (and its pods, as the
// pod garbage collector would).
func (h *harness) nodeDown(in awstest.GroupInstance) {
	ctx := context.Background()
	var pods corev1.PodList
	if err := h.client.List(ctx, &pods, client.MatchingFields{NodeNameIndex: in.PrivateDNSName}); err != nil {
		h.t.Errorf("list pods: %v", err)
	}
	for i := range pods.Items {
		_ = h.client.Delete(ctx, &pods.Items[i])
	}
	if err := h.client.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: in.PrivateDNSName}}); err != nil {
		h.t.Errorf("delete node: %v", err)
	}
}

// addPod puts a pod on a node.
func (h *harness) addPod(node, name string, owner string) {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name), Labels: map[string]string{"app": owner}},
		Spec:       corev1.PodSpec{NodeName: node},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
	if owner == "ds" {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds", UID: "ds", Controller: ptr.To(true)}}
	}
	if err := h.client.Create(h.t.Context(), p); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) rollout() *rolloutv1.NodeGroupRollout {
	ro := &rolloutv1.NodeGroupRollout{}
	if err := h.client.Get(h.t.Context(), types.NamespacedName{Name: "r1"}, ro); err != nil {
		h.t.Fatal(err)
	}
	return ro
}

// run reconciles until the rollout is terminal or failed, moving the
// clock to each requested requeue, or by 100 ms after a step that wrote
// something (the watch event of the write wakes the controller).
func (h *harness) run(steps int) *rolloutv1.NodeGroupRollout {
	h.t.Helper()
	for i := 0; i < steps; i++ {
		writes := h.writes()
		res, err := h.rec.Reconcile(h.t.Context(), reconcile.Request{NamespacedName: types.NamespacedName{Name: "r1"}})
		if err != nil {
			h.t.Logf("reconcile %d: %v", i, err)
		}
		h.asg.WaitHooks()
		ro := h.rollout()
		if ro.Status.Phase.Terminal() || ro.Status.Phase == rolloutv1.PhaseFailed {
			return ro
		}
		next := max(res.RequeueAfter, 100*time.Millisecond)
		if h.writes() > writes {
			next = 100 * time.Millisecond
		}
		h.clock.SetTime(h.clock.Now().Add(next))
	}
	ro := h.rollout()
	h.t.Fatalf("rollout not done after %d reconciles: %s %s", steps, ro.Status.Phase, ro.Status.Message)
	return ro
}

// writes counts the controller's writes so far.
func (h *harness) writes() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for c, k := range h.calls {
		if c.verb != "get" && c.verb != "list" {
			n += k
		}
	}
	return n
}

func (h *harness) eventsWith(reason string) []string {
	var out []string
	for {
		select {
		case e := <-h.events.Events:
			if strings.Contains(e, " "+reason+" ") {
				out = append(out, e)
			}
		default:
			return out
		}
	}
}

func runsARollout(t *testing.T) map[call]int {
	h := newHarness(t, 4, rolloutv1.NodeGroupRolloutSpec{
		ImageID: "ami-00000002", MaxUnavailable: ptr.To(intstr.FromInt32(2)),
		Timeouts: rolloutv1.Timeouts{PostDrainWait: &metav1.Duration{Duration: time.Second}, EvictionRetryInterval: &metav1.Duration{Duration: time.Second}},
	})
	for i, in := range h.asg.Instances(groupName) {
		h.addPod(in.PrivateDNSName, fmt.Sprintf("web-%d", i), "web")
		h.addPod(in.PrivateDNSName, fmt.Sprintf("ds-%d", i), "ds")
	}
	tooMany := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
	tooMany.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: policyv1.DisruptionBudgetCause, Message: "The disruption budget web needs 3 healthy pods and has 3 currently"}}
	h.refuse["web-0"] = refusal{left: 2, err: tooMany}

	ro := h.run(500)
	if ro.Status.Phase != rolloutv1.PhaseSucceeded {
		t.Fatalf("phase %s: %s", ro.Status.Phase, ro.Status.Message)
	}
	for _, in := range h.asg.Instances(groupName) {
		if in.ResolvedVersion != 2 || in.ImageID != "ami-00000002" {
			t.Errorf("instance %s runs version %d image %s, want the new version 2", in.ID, in.ResolvedVersion, in.ImageID)
		}
	}
	g, _ := h.asg.Group(groupName)
	if g.Desired != 4 || g.MaxSize != 4 || g.MinSize != 1 || g.LaunchTemplateVersion != "2" {
		t.Errorf("group %+v, want sizes restored and version 2", g)
	}
	if blocked := h.eventsWith("PodEvictionBlocked"); len(blocked) != 1 || !strings.Contains(blocked[0], "pod default/web-0 blocked by PodDisruptionBudget") ||
		!strings.Contains(blocked[0], "needs 3 healthy pods") {
		t.Errorf("PodEvictionBlocked events %q, want one naming default/web-0 and the budget's message", blocked)
	}
	var nodes corev1.NodeList
	if err := h.client.List(t.Context(), &nodes); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		if n.Spec.Unschedulable || len(n.Spec.Taints) > 0 {
			t.Errorf("new node %s is cordoned or tainted", n.Name)
		}
	}
	return h.calls
}

func forceDeletesAfterTheDrainTimeout(t *testing.T) map[call]int {
	h := newHarness(t, 2, rolloutv1.NodeGroupRolloutSpec{
		LaunchTemplateVersion: "$Latest", Strategy: rolloutv1.StrategyMinimal, NodeOrder: rolloutv1.OrderName,
		Timeouts: rolloutv1.Timeouts{Drain: &metav1.Duration{Duration: 5 * time.Second}, PostDrainWait: &metav1.Duration{}},
	})
	in := h.asg.Instances(groupName)[0]
	h.addPod(in.PrivateDNSName, "db-0", "db")
	multiple := apierrors.NewInternalError(fmt.Errorf("This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."))
	h.refuse["db-0"] = refusal{left: 1 << 30, err: multiple}
	ro := h.run(200)
	if ro.Status.Phase != rolloutv1.PhaseSucceeded || ro.Status.NodesTotal != 0 {
		t.Fatalf("phase %s total %d: with $Latest = the current version there is nothing to do", ro.Status.Phase, ro.Status.NodesTotal)
	}

	h = newHarness(t, 2, rolloutv1.NodeGroupRolloutSpec{
		ImageID: "ami-00000002", Strategy: rolloutv1.StrategyMinimal, NodeOrder: rolloutv1.OrderName,
		Timeouts: rolloutv1.Timeouts{Drain: &metav1.Duration{Duration: 5 * time.Second}, PostDrainWait: &metav1.Duration{}},
	})
	for _, in := range h.asg.Instances(groupName) {
		h.addPod(in.PrivateDNSName, "db-"+in.ID, "db")
		h.refuse["db-"+in.ID] = refusal{left: 1 << 30, err: multiple}
	}
	ro = h.run(200)
	if ro.Status.Phase != rolloutv1.PhaseFailed || ro.Status.Failure.Code != rolloutv1.PodEvictionFailure ||
		!strings.Contains(ro.Status.Failure.Message, "(MultiplePodDisruptionBudgets)") && !strings.Contains(ro.Status.Failure.Message, "PodDisruptionBudget") {
		t.Fatalf("phase %s failure %+v, want PodEvictionFailure", ro.Status.Phase, ro.Status.Failure)
	}
	ro.Spec.Force = true
	ro.Generation++
	if err := h.client.Update(t.Context(), ro); err != nil {
		t.Fatal(err)
	}
	ro = h.run(500)
	if ro.Status.Phase != rolloutv1.PhaseSucceeded {
		t.Fatalf("phase %s after force: %s", ro.Status.Phase, ro.Status.Message)
	}
	if n := h.calls[call{"delete", "", "pods"}]; n == 0 {
		t.Errorf("force deleted no pod")
	}
	return h.calls
}

// TestReconciler drives whole rollouts through the Reconciler, then checks
// deploy/rollout/clusterrole.yaml against every call they made.
func TestReconciler(t *testing.T) {
	used := map[call]int{}
	for name, run := range map[string]func(*testing.T) map[call]int{
		"rollout with refused evictions":         runsARollout,
		"force deletes after PodEvictionFailure": forceDeletesAfterTheDrainTimeout,
		"deleted mid-way":                        deletedMidWay,
		"deleted after its group":                deletedAfterItsGroup,
		"deletion blocked by access":             deletionBlockedByAccess,
		"undecodable rollout":                    reportsAnUndecodableRollout,
		"edited status":                          distrustsAnEditedStatus,
	} {
		t.Run(name, func(t *testing.T) {
			for c, n := range run(t) {
				used[c] += n
			}
		})
	}
	t.Run("ClusterRole grants exactly what the controller calls", func(t *testing.T) {
		checkRBAC(t, used)
	})
}
