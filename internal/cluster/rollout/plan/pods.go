package plan

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
)

// DoNotDisruptAnnotations mark pods that must not be evicted: Karpenter's,
// nodeboot's and Cluster Autoscaler's (value "false" there).
var doNotDisrupt = []struct{ key, value string }{
	{"karpenter.sh/do-not-disrupt", "true"},
	{"nodeboot.io/do-not-disrupt", "true"},
	{"cluster-autoscaler.kubernetes.io/safe-to-evict", "false"},
}

// doNotDisruptAnnotation returns the do-not-disrupt annotation on p, or "".
func doNotDisruptAnnotation(p *corev1.Pod) string {
	for _, a := range doNotDisrupt {
		if p.Annotations[a.key] == a.value {
			return a.key + "=" + a.value
		}
	}
	return ""
}

// toleratesAllTaints reports whether p tolerates every taint, cordons
// included, so the scheduler may put it back on a draining node.
func toleratesAllTaints(p *corev1.Pod) bool {
	return slices.ContainsFunc(p.Spec.Tolerations, func(t corev1.Toleration) bool {
		return t.Key == "" && t.Operator == corev1.TolerationOpExists && t.Effect == ""
	})
}

// emptyDirVolumes returns the names of p's emptyDir volumes.
func emptyDirVolumes(p *corev1.Pod) []string {
	var out []string
	for _, v := range p.Spec.Volumes {
		if v.EmptyDir != nil {
			out = append(out, v.Name)
		}
	}
	return out
}

// terminatingFor returns how long past its deletion deadline (deletion
// timestamp, which already includes the grace period) p is, and whether it
// is terminating at all.
func terminatingFor(p *corev1.Pod, now time.Time) (time.Duration, bool) {
	if p.DeletionTimestamp == nil {
		return 0, false
	}
	return now.Sub(p.DeletionTimestamp.Time), true
}

// budget is a PodDisruptionBudget with its parsed selector.
type budget struct {
	pdb      *policyv1.PodDisruptionBudget
	selector labels.Selector
}

// name is namespace/name.
func (b budget) name() string { return b.pdb.Namespace + "/" + b.pdb.Name }

// never reports whether the budget can never allow a disruption: it wants
// at least as many healthy pods as it expects.
func (b budget) never() bool {
	st := b.pdb.Status
	return st.ExpectedPods > 0 && st.DesiredHealthy >= st.ExpectedPods
}

// budgets indexes PodDisruptionBudgets by namespace.
type budgets map[string][]budget

func newBudgets(pdbs []policyv1.PodDisruptionBudget) budgets {
	out := budgets{}
	for i := range pdbs {
		p := &pdbs[i]
		sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
		if err != nil || p.Spec.Selector == nil {
			continue // the disruption controller ignores it too
		}
		out[p.Namespace] = append(out[p.Namespace], budget{pdb: p, selector: sel})
	}
	return out
}

// matching returns the budgets that select p.
func (bs budgets) matching(p *corev1.Pod) []budget {
	var out []budget
	set := labels.Set(p.Labels)
	for _, b := range bs[p.Namespace] {
		if b.selector.Matches(set) {
			out = append(out, b)
		}
	}
	return out
}

func budgetNames(bs []budget) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.name()
	}
	return out
}

// replicaCounts counts the live (not terminating) pods of each controller.
func replicaCounts(pods []corev1.Pod) map[types.UID]int {
	out := map[types.UID]int{}
	for i := range pods {
		p := &pods[i]
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil && p.DeletionTimestamp == nil && !isFinished(p) {
			out[ref.UID]++
		}
	}
	return out
}

// pdbSummary describes a budget's arithmetic for messages.
func pdbSummary(b budget) string {
	st := b.pdb.Status
	return fmt.Sprintf("%s allows %d disruptions (%d healthy, %d wanted, %d expected)",
		b.name(), st.DisruptionsAllowed, st.CurrentHealthy, st.DesiredHealthy, st.ExpectedPods)
}
