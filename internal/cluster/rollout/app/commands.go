package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/nodegroup/asg"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// newClient returns a Kubernetes client (no cache) for the CLI.
func newClient(kubeconfig string) (client.WithWatch, error) {
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	scheme, err := NewScheme()
	if err != nil {
		return nil, err
	}
	return client.NewWithWatch(cfg, client.Options{Scheme: scheme})
}

func runPlan(ctx context.Context, args []string, env Env) error {
	var sf specFlags
	var kubeconfig, output string
	var nodeReady, podReady time.Duration
	fs := newFlagSet("plan", env.Stdout)
	fs.StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig file")
	sf.register(fs)
	fs.DurationVar(&nodeReady, "assume-node-ready", plan.DefaultAssumedNodeReady, "estimate: time from launch to a Ready node")
	fs.DurationVar(&podReady, "assume-pod-ready", plan.DefaultAssumedPodReady, "estimate: time for an evicted pod to be Ready elsewhere")
	fs.StringVarP(&output, "output", "o", "text", "text or json")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	ro, err := sf.rollout(ctx, "plan")
	if err != nil {
		return err
	}
	spec := ro.Spec
	if output != "text" && output != "json" {
		return fmt.Errorf("%w: --output %q is neither text nor json", ErrUsage, output)
	}
	c, err := newClient(kubeconfig)
	if err != nil {
		return err
	}
	group, err := (&asg.Opener{Load: awsLoader(discard())}).Open(ctx, spec.NodeGroup)
	if err != nil {
		return err
	}
	snap, target, err := previewSnapshot(ctx, c, group, spec)
	if err != nil {
		return err
	}
	r, err := plan.Preview(snap, plan.PreviewOptions{Target: target, AssumedNodeReady: nodeReady, AssumedPodReady: podReady})
	if err != nil {
		return err
	}
	if output == "json" {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return writeReport(env.Stdout, r)
}

// previewSnapshot reads the group, every Node, Pod and budget, and
// resolves the target version ("" when an image makes a new one).
func previewSnapshot(ctx context.Context, c client.Client, g nodegroup.Group, spec rolloutv1.NodeGroupRolloutSpec) (plan.Snapshot, string, error) {
	state, err := g.Describe(ctx)
	if err != nil {
		return plan.Snapshot{}, "", err
	}
	snap := plan.Snapshot{Now: time.Now(), Group: state, Rollout: &rolloutv1.NodeGroupRollout{Spec: spec}}
	var nodes corev1.NodeList
	var pods corev1.PodList
	var pdbs policyv1.PodDisruptionBudgetList
	for _, l := range []client.ObjectList{&nodes, &pods, &pdbs} {
		if err := c.List(ctx, l); err != nil {
			return plan.Snapshot{}, "", fmt.Errorf("list %T: %w", l, err)
		}
	}
	snap.Nodes, snap.Pods, snap.PDBs = nodes.Items, pods.Items, pdbs.Items
	if spec.ImageID != "" || state.LaunchTemplate == nil {
		return snap, "", nil
	}
	target := spec.LaunchTemplateVersion
	if target == "" {
		target = state.LaunchTemplate.Version
	}
	if !nodegroup.IsVersionNumber(target) {
		if target, err = g.ResolveVersion(ctx, state.LaunchTemplate.ID, target); err != nil {
			return plan.Snapshot{}, "", err
		}
	}
	return snap, target, nil
}

func runStart(ctx context.Context, args []string, env Env) error {
	var sf specFlags
	var kubeconfig string
	var dryRun bool
	fs := newFlagSet("start", env.Stdout)
	fs.StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig file")
	sf.register(fs)
	fs.BoolVar(&dryRun, "dry-run", false, "print the NodeGroupRollout instead of creating it")
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	ro, err := sf.rollout(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	if dryRun {
		return writeYAML(env.Stdout, ro)
	}
	c, err := newClient(kubeconfig)
	if err != nil {
		return err
	}
	if err := c.Create(ctx, ro); err != nil {
		return fmt.Errorf("create NodeGroupRollout %s: %w", ro.Name, err)
	}
	_, err = fmt.Fprintf(env.Stdout, "nodegrouprollout %s created; follow it with: nodeboot-rollout status %s --watch\n", ro.Name, ro.Name)
	return err
}

// runSwitch pauses, resumes (optionally with force) or aborts a rollout
// by patching its spec.
func runSwitch(ctx context.Context, cmd string, args []string, env Env) error {
	var kubeconfig string
	var force bool
	fs := newFlagSet(cmd, env.Stdout)
	fs.StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig file")
	if cmd == "resume" {
		fs.BoolVar(&force, "force", false, "also set spec.force: delete pods still blocking after the drain timeout (resumes a PodEvictionFailure)")
	}
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	spec := map[string]any{}
	switch cmd {
	case "pause":
		spec["paused"] = true
	case "resume":
		spec["paused"] = false
		if force {
			spec["force"] = true
		}
	case "abort":
		spec["abort"] = true
	}
	body, err := json.Marshal(map[string]any{"spec": spec})
	if err != nil {
		return err
	}
	c, err := newClient(kubeconfig)
	if err != nil {
		return err
	}
	ro := &rolloutv1.NodeGroupRollout{ObjectMeta: metav1.ObjectMeta{Name: fs.Arg(0)}}
	if err := c.Patch(ctx, ro, client.RawPatch(types.MergePatchType, body)); err != nil {
		return fmt.Errorf("%s %s: %w", cmd, ro.Name, err)
	}
	_, err = fmt.Fprintf(env.Stdout, "nodegrouprollout %s: %s requested (phase %s)\n", ro.Name, cmd, phaseOrPending(ro.Status.Phase))
	return err
}

func runStatus(ctx context.Context, args []string, env Env) error {
	var kubeconfig, output string
	var follow bool
	fs := newFlagSet("status", env.Stdout)
	fs.StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig file")
	fs.BoolVarP(&follow, "watch", "w", false, "keep showing progress until the rollout succeeds, fails or is aborted")
	fs.StringVarP(&output, "output", "o", "text", "text or json")
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	if output != "text" && output != "json" {
		return fmt.Errorf("%w: --output %q is neither text nor json", ErrUsage, output)
	}
	c, err := newClient(kubeconfig)
	if err != nil {
		return err
	}
	ro := &rolloutv1.NodeGroupRollout{}
	if err := c.Get(ctx, types.NamespacedName{Name: fs.Arg(0)}, ro); err != nil {
		return err
	}
	show := func(ro *rolloutv1.NodeGroupRollout) error {
		if output == "json" {
			return json.NewEncoder(env.Stdout).Encode(ro)
		}
		if follow && env.Terminal {
			io.WriteString(env.Stdout, "\x1b[H\x1b[2J") // redraw in place
		}
		return writeStatus(env.Stdout, ro, time.Now())
	}
	if err := show(ro); err != nil || !follow {
		return err
	}
	return watchStatus(ctx, c, ro, show)
}

// watchStatus shows every change of the rollout until it ends; a failed
// rollout makes the command fail.
func watchStatus(ctx context.Context, c client.WithWatch, ro *rolloutv1.NodeGroupRollout, show func(*rolloutv1.NodeGroupRollout) error) error {
	for !ro.Status.Phase.Terminal() && ro.Status.Phase != rolloutv1.PhaseFailed {
		w, err := c.Watch(ctx, &rolloutv1.NodeGroupRolloutList{}, client.MatchingFields{"metadata.name": ro.Name}, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: ro.ResourceVersion}})
		if err != nil {
			return err
		}
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				break // e.g. the resource version expired: read it again below
			}
			next, ok := ev.Object.(*rolloutv1.NodeGroupRollout)
			if !ok {
				continue
			}
			if ev.Type == watch.Deleted {
				w.Stop()
				return fmt.Errorf("nodegrouprollout %s was deleted", ro.Name)
			}
			ro = next
			if err := show(ro); err != nil {
				w.Stop()
				return err
			}
			if ro.Status.Phase.Terminal() || ro.Status.Phase == rolloutv1.PhaseFailed {
				break
			}
		}
		w.Stop()
		if err := ctx.Err(); err != nil {
			return err
		}
		if !ro.Status.Phase.Terminal() && ro.Status.Phase != rolloutv1.PhaseFailed {
			if err := c.Get(ctx, types.NamespacedName{Name: ro.Name}, ro); err != nil {
				return err
			}
		}
	}
	if ro.Status.Phase == rolloutv1.PhaseFailed {
		return errFailed
	}
	return nil
}

func phaseOrPending(p rolloutv1.Phase) string {
	if p == "" {
		return "Pending"
	}
	return string(p)
}
