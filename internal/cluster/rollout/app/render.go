package app

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"sigs.k8s.io/yaml"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// writeReport prints a pre-flight plan: the rollout's shape, the estimate
// and, per outdated node, what its drain will meet.
func writeReport(w io.Writer, r plan.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Rollout plan for Auto Scaling group %s\n", r.Group)
	fmt.Fprintf(&b, "  target:    %s\n", r.Target)
	fmt.Fprintf(&b, "  outdated:  %d of %d instances\n", r.Outdated, r.Instances)
	shape := fmt.Sprintf("%d batches of up to %d nodes, order %s", r.Batches, r.MaxUnavailable, r.Order)
	if r.Strategy == rolloutv1.StrategyDefault {
		shape = fmt.Sprintf("surge %d nodes, then %s", r.Surge, shape)
	}
	fmt.Fprintf(&b, "  strategy:  %s: %s\n", r.Strategy, shape)
	fmt.Fprintf(&b, "  estimate:  %s (drain timeout %s, post-drain wait %s; assumes a new node is Ready in %s, an evicted pod in %s)\n",
		r.Estimate.Round(time.Second), r.DrainTimeout, r.PostDrainWait, r.AssumedNodeReady, r.AssumedPodReady)
	for _, p := range r.EstimateParts {
		fmt.Fprintf(&b, "             %-10s %s\n", p.Duration.Round(time.Second), p.What)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(&b, "  warning:   %s\n", warn)
	}
	if _, err := io.WriteString(w, b.String()+"\n"); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tINSTANCE\tZONE\tVERSION\tPODS\tDRAIN\tBLOCKS")
	blocking := 0
	for _, n := range r.Nodes {
		blocks := "-"
		if n.Blocks() {
			blocks = "yes"
			blocking++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", orDash(n.Name), n.InstanceID, n.Zone, n.Version, n.Pods, n.Drain.Round(time.Second), blocks)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.Reset()
	for _, n := range r.Nodes {
		if len(n.Findings) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s (%s):\n", orDash(n.Name), n.InstanceID)
		for _, f := range n.Findings {
			mark := "  note "
			if f.Blocks {
				mark = "  BLOCK"
			}
			pod := f.Pod
			if pod == "" {
				pod = "(node)"
			}
			fmt.Fprintf(&b, "%s %s: %s: %s\n", mark, pod, f.Kind, f.Detail)
		}
	}
	fmt.Fprintf(&b, "\n%d of %d nodes have pods that will block their drain (PodEvictionFailure after %s unless --force).\n", blocking, len(r.Nodes), r.DrainTimeout)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeStatus prints a rollout's progress: nodes done of total, the
// current batch, and what blocks now.
func writeStatus(w io.Writer, ro *rolloutv1.NodeGroupRollout, now time.Time) error {
	st := ro.Status
	var b strings.Builder
	fmt.Fprintf(&b, "nodegrouprollout %s: %s", ro.Name, phaseOrPending(st.Phase))
	if st.Phase == rolloutv1.PhasePaused {
		fmt.Fprintf(&b, " (in %s)", st.ResumePhase)
	}
	fmt.Fprintf(&b, "\n  group %s", ro.Spec.NodeGroup.AutoScalingGroupName)
	if st.Target != nil {
		fmt.Fprintf(&b, ", target launch template %s version %s", st.Target.ID, st.Target.Version)
	}
	fmt.Fprintf(&b, ", strategy %s", plan.SettingsOf(ro.Spec).Strategy)
	if st.Surge > 0 {
		fmt.Fprintf(&b, ", surge %d", st.Surge)
	}
	if st.MaxUnavailable > 0 {
		fmt.Fprintf(&b, ", %d at a time", st.MaxUnavailable)
	}
	fmt.Fprintf(&b, "\n  progress: %s %d/%d nodes replaced, batch %d", bar(st.NodesReplaced, st.NodesTotal, 30), st.NodesReplaced, st.NodesTotal, st.Batch)
	if st.StartTime != nil {
		end := now
		if st.CompletionTime != nil {
			end = st.CompletionTime.Time
		}
		fmt.Fprintf(&b, ", %s elapsed", end.Sub(st.StartTime.Time).Round(time.Second))
	}
	if st.Message != "" {
		fmt.Fprintf(&b, "\n  now: %s", st.Message)
	}
	if f := st.Failure; f != nil {
		fmt.Fprintf(&b, "\n  FAILED %s: %s", f.Code, f.Message)
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	var current []rolloutv1.NodeProgress
	for _, n := range st.Nodes {
		if n.Batch == st.Batch || n.Step == rolloutv1.StepDraining || n.Step == rolloutv1.StepWaitingAfterDrain || n.Step == rolloutv1.StepTerminating {
			current = append(current, n)
		}
	}
	if len(current) > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  NODE\tINSTANCE\tZONE\tBATCH\tSTEP\tEVICTIONS\tDRAINING FOR")
		for _, n := range current {
			since := "-"
			if n.DrainStartTime != nil {
				end := now
				if n.DrainedTime != nil {
					end = n.DrainedTime.Time
				}
				since = end.Sub(n.DrainStartTime.Time).Round(time.Second).String()
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\t%d\t%s\n", orDash(n.Name), n.InstanceID, n.Zone, n.Batch, n.Step, n.Evictions, since)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	b.Reset()
	for _, n := range current {
		for _, bl := range n.Blockers {
			fmt.Fprintf(&b, "  blocking on %s for %s: %s\n", orDash(n.Name), now.Sub(bl.Since.Time).Round(time.Second), plan.BlockerText(bl))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// bar draws done/total as a bar of width cells.
func bar(done, total int32, width int) string {
	filled := 0
	if total > 0 {
		filled = int(done) * width / int(total)
	}
	return "[" + strings.Repeat("#", filled) + strings.Repeat(".", width-filled) + "]"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func writeYAML(w io.Writer, v any) error {
	out, err := yaml.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}
