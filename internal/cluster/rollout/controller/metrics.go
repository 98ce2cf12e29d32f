package controller

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/cluster/rollout/plan"
)

// Metric names, exported for dashboards and tests.
const (
	MetricPhase         = "nodeboot_rollout_phase"
	MetricNodes         = "nodeboot_rollout_nodes"
	MetricBlockedPods   = "nodeboot_rollout_blocked_pods"
	MetricEvictions     = "nodeboot_rollout_evictions_total"
	MetricActions       = "nodeboot_rollout_actions_total"
	MetricDrainDuration = "nodeboot_rollout_node_drain_seconds"
)

// phases are every value of MetricPhase's phase label.
var phases = []rolloutv1.Phase{
	rolloutv1.PhaseInitializing, rolloutv1.PhaseScalingUp, rolloutv1.PhaseUpgrading, rolloutv1.PhaseScalingDown,
	rolloutv1.PhaseSucceeded, rolloutv1.PhaseFailed, rolloutv1.PhasePaused, rolloutv1.PhaseAborting, rolloutv1.PhaseAborted,
}

// Metrics exports the rollouts' progress. A nil *Metrics records nothing.
type Metrics struct {
	phase     *prometheus.GaugeVec
	nodes     *prometheus.GaugeVec
	blocked   *prometheus.GaugeVec
	evictions *prometheus.CounterVec
	actions   *prometheus.CounterVec
	drain     prometheus.Histogram
}

// NewMetrics creates the controller's metrics and registers them with reg
// (controller-runtime's metrics.Registry in the binary).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		phase: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: MetricPhase, Help: "1 for the phase each rollout is in, 0 for the others.",
		}, []string{"rollout", "phase"}),
		nodes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: MetricNodes, Help: "Outdated nodes of each rollout: total at the start, replaced so far, in the current batch.",
		}, []string{"rollout", "state"}),
		blocked: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: MetricBlockedPods, Help: "Pods currently keeping a node of the rollout from draining.",
		}, []string{"rollout"}),
		evictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricEvictions, Help: "Eviction requests by result: evicted, or the blocker reason.",
		}, []string{"result"}),
		actions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricActions, Help: "Requests made to carry out actions, by action kind and result (evictions and deletions count per pod).",
		}, []string{"action", "result"}),
		drain: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    MetricDrainDuration,
			Help:    "Seconds from a node's first eviction to its last pod gone.",
			Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 900, 1800, 3600},
		}),
	}
	for _, c := range []prometheus.Collector{m.phase, m.nodes, m.blocked, m.evictions, m.actions, m.drain} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register rollout metrics: %w", err)
		}
	}
	return m, nil
}

// observe sets the gauges from a rollout's status.
func (m *Metrics) observe(ro *rolloutv1.NodeGroupRollout) {
	if m == nil {
		return
	}
	st := ro.Status
	for _, p := range phases {
		v := 0.0
		if p == st.Phase {
			v = 1
		}
		m.phase.WithLabelValues(ro.Name, string(p)).Set(v)
	}
	inBatch, blocked := 0, 0
	for _, n := range st.Nodes {
		if n.Batch == st.Batch && n.Step != rolloutv1.StepTerminated && n.Step != rolloutv1.StepReleased {
			inBatch++
		}
		blocked += len(n.Blockers)
	}
	m.nodes.WithLabelValues(ro.Name, "total").Set(float64(st.NodesTotal))
	m.nodes.WithLabelValues(ro.Name, "replaced").Set(float64(st.NodesReplaced))
	m.nodes.WithLabelValues(ro.Name, "batch").Set(float64(inBatch))
	m.blocked.WithLabelValues(ro.Name).Set(float64(blocked))
}

// forget drops a deleted rollout's series.
func (m *Metrics) forget(rollout string) {
	if m == nil {
		return
	}
	m.phase.DeletePartialMatch(prometheus.Labels{"rollout": rollout})
	m.nodes.DeletePartialMatch(prometheus.Labels{"rollout": rollout})
	m.blocked.DeletePartialMatch(prometheus.Labels{"rollout": rollout})
}

// transitions observes the drain durations of nodes that became drained.
func (m *Metrics) transitions(before, after *rolloutv1.NodeGroupRolloutStatus) {
	if m == nil {
		return
	}
	drained := map[string]bool{}
	for _, n := range before.Nodes {
		if n.DrainedTime != nil {
			drained[n.InstanceID] = true
		}
	}
	for _, n := range after.Nodes {
		if n.DrainedTime != nil && n.DrainStartTime != nil && !drained[n.InstanceID] {
			m.drain.Observe(n.DrainedTime.Sub(n.DrainStartTime.Time).Seconds())
		}
	}
}

func (m *Metrics) eviction(r plan.EvictionResult) {
	if m == nil {
		return
	}
	result := "evicted"
	if r.Reason != "" {
		result = string(r.Reason)
	}
	m.evictions.WithLabelValues(result).Inc()
}

func (m *Metrics) action(a plan.Action, err error) {
	if m == nil {
		return
	}
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.actions.WithLabelValues(actionName(a), result).Inc()
}

// actionName is the action's type name, e.g. "Evict".
func actionName(a plan.Action) string {
	t := reflect.TypeOf(a).String()
	return t[strings.LastIndexByte(t, '.')+1:]
}
