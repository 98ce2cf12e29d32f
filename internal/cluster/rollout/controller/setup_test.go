package controller

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestMoving: which stored rollouts Node and Pod events wake. A paused
// rollout being aborted or deleted still moves (its abort goes on while
// paused), so it must not wait for the poll interval.
func TestMoving(t *testing.T) {
	tests := []struct {
		name     string
		phase    string
		spec     map[string]any
		deleting bool
		want     bool
	}{
		{name: "new", want: true},
		{name: "upgrading", phase: "Upgrading", want: true},
		{name: "succeeded", phase: "Succeeded"},
		{name: "aborted", phase: "Aborted"},
		{name: "paused", phase: "Paused", spec: map[string]any{"paused": true}},
		{name: "paused and aborted", phase: "Aborting", spec: map[string]any{"paused": true, "abort": true}, want: true},
		{name: "paused and deleted", phase: "Paused", spec: map[string]any{"paused": true}, deleting: true, want: true},
		{name: "deleted after it finished", phase: "Aborted", deleting: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := newUnstructuredRollout()
			u.SetName("r")
			if tc.spec != nil {
				if err := unstructured.SetNestedMap(u.Object, tc.spec, "spec"); err != nil {
					t.Fatal(err)
				}
			}
			if tc.phase != "" {
				if err := unstructured.SetNestedField(u.Object, tc.phase, "status", "phase"); err != nil {
					t.Fatal(err)
				}
			}
			if tc.deleting {
				now := metav1.Now()
				u.SetDeletionTimestamp(&now)
			}
			if got := moving(u); got != tc.want {
				t.Errorf("moving = %t, want %t", got, tc.want)
			}
		})
	}
}
