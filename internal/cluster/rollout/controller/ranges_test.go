package controller

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestDecodeRolloutRefusesNumbersItsFieldsCannotHold stores numbers the
// API server kept before the CRD bounded int32 fields: decodeRollout
// reports each (so the controller reports the object as undecodable)
// instead of handing the planner a truncated value.
func TestDecodeRolloutRefusesNumbersItsFieldsCannotHold(t *testing.T) {
	tests := []struct {
		name    string
		spec    map[string]any
		status  map[string]any
		wantErr string
	}{
		{name: "whole object in range", spec: map[string]any{"maxUnavailable": "10%"},
			status: map[string]any{"batch": int64(3), "observedGeneration": int64(5_000_000_000),
				"original": map[string]any{"desiredCapacity": int64(2_147_483_647)}}},
		{name: "maxUnavailable as a number in range", spec: map[string]any{"maxUnavailable": int64(50)}},
		{name: "status.batch past int32", status: map[string]any{"batch": int64(3_000_000_000)},
			wantErr: "status.batch: 3000000000 does not fit in its field"},
		{name: "desiredCapacity written as 1e10", status: map[string]any{"original": map[string]any{"desiredCapacity": 1e10}},
			wantErr: "status.original.desiredCapacity: 1e+10 is not a whole number"},
		{name: "a node's evictions below int32", status: map[string]any{"nodes": []any{
			map[string]any{"name": "a", "instanceID": "i-1", "batch": int64(1), "step": "Draining"},
			map[string]any{"name": "b", "instanceID": "i-2", "batch": int64(1), "step": "Draining", "evictions": int64(-3_000_000_000)},
		}}, wantErr: "status.nodes[1].evictions: -3000000000"},
		{name: "maxUnavailable as a number past int32", spec: map[string]any{"maxUnavailable": int64(3_000_000_000)},
			wantErr: "spec.maxUnavailable: 3000000000"},
		{name: "a fraction in an int32 field", status: map[string]any{"surge": 1.5},
			wantErr: "status.surge: 1.5 is not a whole number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := newUnstructuredRollout()
			u.SetName("r1")
			spec := map[string]any{"nodeGroup": map[string]any{"autoScalingGroupName": "g"}}
			for k, v := range tc.spec {
				spec[k] = v
			}
			if err := unstructured.SetNestedField(u.Object, spec, "spec"); err != nil {
				t.Fatal(err)
			}
			if tc.status != nil {
				u.Object["status"] = tc.status
			}
			_, err := decodeRollout(u)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("decode: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("decode: %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}
