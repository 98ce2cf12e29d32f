package app

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// writeReport prints a pre-flight plan: the rollout's shape, the estimate
// and, per outdated node, what its drain will meet.
func writeReport(w io.Writer, r plan.Report) error {
	if _, err := io.WriteString(w, reportHeader(r)+"\n"); err != nil {
		return err
	}
	blocking, err := writeNodeTable(w, r.Nodes)
	if err != nil {
		return err
	}
	text := findingsText(r.Nodes) + fmt.Sprintf("\n%d of %d nodes have pods that will block their drain (PodEvictionFailure after %s unless --force).\n",
		blocking, len(r.Nodes), r.DrainTimeout)
	_, err = io.WriteString(w, text)
	return err
}

// reportHeader is the plan's shape, estimate and warnings.
func reportHeader(r plan.Report) string {
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
	return b.String()
}

// writeNodeTable prints one row per outdated node and returns how many
// have pods that block their drain.
func writeNodeTable(w io.Writer, nodes []plan.NodeReport) (int, error) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tINSTANCE\tZONE\tVERSION\tPODS\tDRAIN\tBLOCKS")
	blocking := 0
	for _, n := range nodes {
		blocks := "-"
		if n.Blocks() {
			blocks = "yes"
			blocking++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", orDash(n.Name), n.InstanceID, n.Zone, n.Version, n.Pods, n.Drain.Round(time.Second), blocks)
	}
	return blocking, tw.Flush()
}

// findingsText lists, per node, what its drain will meet.
func findingsText(nodes []plan.NodeReport) string {
	var b strings.Builder
	for _, n := range nodes {
		if len(n.Findings) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s (%s):\n", orDash(n.Name), n.InstanceID)
		for _, f := range n.Findings {
			mark := "  note "
			if f.Blocks {
				mark = "  BLOCK"
			}
			fmt.Fprintf(&b, "%s %s: %s: %s\n", mark, cmp.Or(f.Pod, "(node)"), f.Kind, f.Detail)
		}
	}
	return b.String()
}

// statusView is what status shows of a rollout at a time: the data, laid
// out by writeStatus.
type statusView struct {
	// lines are the summary: phase, group, progress, what happens now,
	// the failure and the conditions.
	lines []string
	// nodes are the rows of the nodes in flight or in the current batch.
	nodes []nodeRow
	// blockers say what blocks those nodes now.
	blockers []string
}

// nodeRow is one picked node's row.
type nodeRow struct {
	name, instance, zone string
	batch, evictions     int32
	step                 rolloutv1.NodeStep
	drainingFor          string
}

// writeStatus prints a rollout's progress: nodes done of total, the
// current batch, and what blocks now.
func writeStatus(w io.Writer, ro *rolloutv1.NodeGroupRollout, now time.Time) error {
	v := viewStatus(ro, now)
	if _, err := io.WriteString(w, strings.Join(v.lines, "\n  ")+"\n"); err != nil {
		return err
	}
	if len(v.nodes) > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  NODE\tINSTANCE\tZONE\tBATCH\tSTEP\tEVICTIONS\tDRAINING FOR")
		for _, n := range v.nodes {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\t%d\t%s\n", n.name, n.instance, n.zone, n.batch, n.step, n.evictions, n.drainingFor)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, b := range v.blockers {
		if _, err := io.WriteString(w, "  "+b+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// viewStatus computes what status shows.
func viewStatus(ro *rolloutv1.NodeGroupRollout, now time.Time) statusView {
	st := ro.Status
	title := fmt.Sprintf("nodegrouprollout %s: %s", ro.Name, phaseOrPending(st.Phase))
	if st.Phase == rolloutv1.PhasePaused {
		title += fmt.Sprintf(" (in %s)", st.ResumePhase)
	}
	v := statusView{lines: []string{title, groupLine(ro), progressLine(st, now)}}
	if st.Message != "" {
		v.lines = append(v.lines, "now: "+st.Message)
	}
	if f := st.Failure; f != nil {
		v.lines = append(v.lines, fmt.Sprintf("FAILED %s: %s", f.Code, f.Message))
	}
	if c := conditionsLine(st.Conditions); c != "" {
		v.lines = append(v.lines, c)
	}
	for _, n := range st.Nodes {
		if n.Batch == st.Batch || n.Step == rolloutv1.StepDraining || n.Step == rolloutv1.StepWaitingAfterDrain || n.Step == rolloutv1.StepTerminating {
			v.nodes = append(v.nodes, rowOf(n, now))
			for _, bl := range n.Blockers {
				v.blockers = append(v.blockers, fmt.Sprintf("blocking on %s for %s: %s", orDash(n.Name), now.Sub(bl.Since.Time).Round(time.Second), plan.BlockerText(bl)))
			}
		}
	}
	return v
}

// groupLine names the group, the target and the shape.
func groupLine(ro *rolloutv1.NodeGroupRollout) string {
	st := ro.Status
	line := "group " + ro.Spec.NodeGroup.AutoScalingGroupName
	if st.Target != nil {
		line += fmt.Sprintf(", target launch template %s version %s", st.Target.ID, st.Target.Version)
	}
	line += ", strategy " + string(plan.SettingsOf(ro.Spec).Strategy)
	if st.Surge > 0 {
		line += fmt.Sprintf(", surge %d", st.Surge)
	}
	if st.MaxUnavailable > 0 {
		line += fmt.Sprintf(", %d at a time", st.MaxUnavailable)
	}
	return line
}

// progressLine is the bar, the counts, the batch and the time taken.
func progressLine(st rolloutv1.NodeGroupRolloutStatus, now time.Time) string {
	line := fmt.Sprintf("progress: %s %d/%d nodes replaced, batch %d", bar(st.NodesReplaced, st.NodesTotal, 30), st.NodesReplaced, st.NodesTotal, st.Batch)
	if st.StartTime != nil {
		end := now
		if st.CompletionTime != nil {
			end = st.CompletionTime.Time
		}
		line += fmt.Sprintf(", %s elapsed", end.Sub(st.StartTime.Time).Round(time.Second))
	}
	return line
}

// conditionsLine shows the conditions as TYPE=STATUS (REASON).
func conditionsLine(conds []metav1.Condition) string {
	var parts []string
	for _, c := range conds {
		parts = append(parts, fmt.Sprintf("%s=%s (%s)", c.Type, c.Status, c.Reason))
	}
	if len(parts) == 0 {
		return ""
	}
	return "conditions: " + strings.Join(parts, ", ")
}

// rowOf is a picked node's row: how long it has drained (or took to).
func rowOf(n rolloutv1.NodeProgress, now time.Time) nodeRow {
	since := "-"
	if n.DrainStartTime != nil {
		end := now
		if n.DrainedTime != nil {
			end = n.DrainedTime.Time
		}
		since = end.Sub(n.DrainStartTime.Time).Round(time.Second).String()
	}
	return nodeRow{name: orDash(n.Name), instance: n.InstanceID, zone: n.Zone, batch: n.Batch, step: n.Step, evictions: n.Evictions, drainingFor: since}
}

// bar draws done/total as a bar of width cells.
func bar(done, total int32, width int) string {
	filled := 0
	if total > 0 {
		// Counts out of order (a status edited by hand) fill the bar or
		// leave it empty rather than panic in strings.Repeat.
		filled = min(max(int(done)*width/int(total), 0), width)
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
