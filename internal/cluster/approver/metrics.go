package approver

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/nodeboot/nodeboot/internal/cluster/approver/policy"
)

// Metrics counts decisions. A nil *Metrics records nothing.
type Metrics struct {
	decisions        *prometheus.CounterVec
	latency          *prometheus.HistogramVec
	nodeWaits        prometheus.Counter
	inventoryWaits   prometheus.Counter
	inventoryLookups *prometheus.CounterVec
	inventoryCalls   *prometheus.CounterVec
	inventoryBatch   prometheus.Histogram
	inventoryParked  prometheus.Histogram
}

// Metric names, exported for dashboards and tests.
const (
	MetricDecisions = "nodeboot_approver_csr_decisions_total"
	MetricLatency   = "nodeboot_approver_csr_decision_latency_seconds"
	MetricNodeWaits = "nodeboot_approver_csr_node_waits_total"
	// MetricInventoryWaits counts requeues while EC2 cannot be reached.
	MetricInventoryWaits = "nodeboot_approver_csr_inventory_waits_total"
	// MetricInventoryLookups counts inventory lookups by outcome.
	MetricInventoryLookups = "nodeboot_approver_inventory_lookups_total"
	// MetricInventoryCalls counts the inventory's AWS calls by operation
	// and result.
	MetricInventoryCalls = "nodeboot_approver_inventory_calls_total"
	// MetricInventoryBatch is the number of Nodes one DescribeInstances
	// call answered.
	MetricInventoryBatch = "nodeboot_approver_inventory_batch_size"
	// MetricInventoryParked is how long a CSR waited for its Node's
	// inventory answer before a worker could decide it.
	MetricInventoryParked = "nodeboot_approver_csr_inventory_wait_seconds"
)

// NewMetrics creates the approver's metrics and registers them with reg
// (controller-runtime's metrics.Registry in the binary).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricDecisions,
			Help: "Kubelet serving CSRs decided, by decision (approved or denied) and reason.",
		}, []string{"decision", "reason"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    MetricLatency,
			Help:    "Seconds from CSR creation to the approval or denial being written.",
			Buckets: []float64{0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600},
		}, []string{"decision"}),
		nodeWaits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: MetricNodeWaits,
			Help: "Times a kubelet serving CSR was requeued because its Node did not exist or did not report the CSR's addresses yet.",
		}),
		inventoryWaits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: MetricInventoryWaits,
			Help: "Times a kubelet serving CSR was requeued because the EC2 inventory lookup failed transiently (throttling, 5xx, timeout).",
		}),
		inventoryLookups: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricInventoryLookups,
			Help: "EC2 inventory lookups by outcome: cache_hit, backoff (answered with the last failure), queued, and found, not_found or error once a call answered.",
		}, []string{"outcome"}),
		inventoryCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricInventoryCalls,
			Help: "AWS calls of the EC2 inventory by operation (DescribeInstances, DescribeCluster) and result (ok, error).",
		}, []string{"operation", "result"}),
		inventoryBatch: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    MetricInventoryBatch,
			Help:    "Nodes asked about in one DescribeInstances call.",
			Buckets: []float64{1, 2, 5, 10, 25, 50, 100, 150},
		}),
		inventoryParked: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    MetricInventoryParked,
			Help:    "Seconds a kubelet serving CSR waited for its Node's EC2 inventory answer (from its event or decision to the answer).",
			Buckets: []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10},
		}),
	}
	for _, c := range []prometheus.Collector{m.decisions, m.latency, m.nodeWaits, m.inventoryWaits, m.inventoryLookups, m.inventoryCalls, m.inventoryBatch, m.inventoryParked} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register approver metrics: %w", err)
		}
	}
	return m, nil
}

func (m *Metrics) observeDecision(d policy.Decision, latency time.Duration) {
	if m == nil {
		return
	}
	label := decisionLabel(d)
	m.decisions.WithLabelValues(label, d.Reason).Inc()
	m.latency.WithLabelValues(label).Observe(latency.Seconds())
}

// observeWait counts a requeue of a decision held back by nodeWaitLeft.
func (m *Metrics) observeWait(d policy.Decision) {
	if m == nil {
		return
	}
	if d.InventoryTransient() {
		m.inventoryWaits.Inc()
		return
	}
	m.nodeWaits.Inc()
}

func decisionLabel(d policy.Decision) string {
	if d.Approve {
		return "approved"
	}
	return "denied"
}

// ObserveInventoryCall counts one AWS call of the inventory.
func (m *Metrics) ObserveInventoryCall(operation string, keys int, err error) {
	if m == nil {
		return
	}
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.inventoryCalls.WithLabelValues(operation, result).Inc()
	if operation == "DescribeInstances" {
		m.inventoryBatch.Observe(float64(keys))
	}
}

// ObserveInventoryLookup counts one inventory lookup with its outcome
// (cache_hit, backoff, queued; found, not_found or error).
func (m *Metrics) ObserveInventoryLookup(outcome string) {
	if m == nil {
		return
	}
	m.inventoryLookups.WithLabelValues(outcome).Inc()
}

// observeParked records how long a CSR waited for an inventory answer.
func (m *Metrics) observeParked(waited time.Duration) {
	if m == nil {
		return
	}
	m.inventoryParked.Observe(waited.Seconds())
}
