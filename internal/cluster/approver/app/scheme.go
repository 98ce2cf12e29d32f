package app

import (
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// NewScheme registers only the API groups the approver touches: core/v1
// (Nodes, Events), certificates/v1, coordination/v1 (leader election
// Leases) and events/v1.
func NewScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme,
		certificatesv1.AddToScheme,
		coordinationv1.AddToScheme,
		eventsv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("build scheme: %w", err)
		}
	}
	return scheme, nil
}
