package approver

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
)

// Aggregation of the approver's Events: after aggregateAfter Events of one
// kind, type and reason on different objects within aggregateWindowSeconds,
// further ones only count up one combined Event. A join burst of 1,000
// nodes then writes a dozen AutoApproved Events and a count, not 1,000;
// each CSR's condition keeps its own message.
const (
	aggregateAfter         = 10
	aggregateWindowSeconds = 600
)

// NewEventBroadcaster returns the broadcaster of the approver's Events,
// writing to sink. Recording never blocks: client-go queues up to 1,000
// Events and drops the rest, and the sink's client has its own rate limit,
// so Events trail a burst of decisions without delaying any. Call Shutdown
// when done.
func NewEventBroadcaster(sink typedcorev1.EventInterface) record.EventBroadcaster {
	b := record.NewBroadcasterWithCorrelatorOptions(record.CorrelatorOptions{
		KeyFunc:              aggregateKey,
		MessageFunc:          aggregateMessage,
		MaxEvents:            aggregateAfter,
		MaxIntervalInSeconds: aggregateWindowSeconds,
	})
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: sink})
	return b
}

// NewEventRecorder returns a recorder of b whose Events name source.
func NewEventRecorder(b record.EventBroadcaster, scheme *runtime.Scheme, source string) record.EventRecorder {
	return b.NewRecorder(scheme, corev1.EventSource{Component: source})
}

// aggregateKey groups Events by source, kind, type and reason, whatever
// object they are about (client-go's default groups per object, which
// never combines anything for CSRs: each is decided once); the message
// tells the members apart.
func aggregateKey(e *corev1.Event) (string, string) {
	return strings.Join([]string{e.Source.Component, e.InvolvedObject.Kind, e.Type, e.Reason}, "/"), e.Message
}

// aggregateMessage is the message of the combined Event. It is the same
// for every member, so that client-go counts them up on one Event instead
// of writing one per member.
func aggregateMessage(e *corev1.Event) string {
	return fmt.Sprintf("(combined from similar events on several %ss) %s: each object's own Events and conditions say more",
		e.InvolvedObject.Kind, e.Reason)
}
