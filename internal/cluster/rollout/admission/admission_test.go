package admission

import (
	"math"
	"strings"
	"testing"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	rolloutv1 "github.com/nodeboot/nodeboot/api/rollout/v1alpha1"
	rolloutdeploy "github.com/nodeboot/nodeboot/deploy/rollout"
)

// TestCheckRefusesWhatTheAPIServerRefuses checks the refusals of
// BadRollouts; the e2e suite creates the same objects on a real API server
// and compares its answers with Check's.
func TestCheckRefusesWhatTheAPIServerRefuses(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range BadRollouts() {
		t.Run(tc.Name, func(t *testing.T) {
			err := c.Check(t.Context(), tc.Rollout)
			if !apierrors.IsInvalid(err) {
				t.Fatalf("Check() = %v, want an Invalid error", err)
			}
			for _, want := range tc.Want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Check() = %q\nwant it to contain %q", err, want)
				}
			}
		})
	}
}

func TestCheckAcceptsGoodRollouts(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range GoodRollouts() {
		t.Run(tc.Name, func(t *testing.T) {
			if err := c.Check(t.Context(), tc.Rollout); err != nil {
				t.Fatalf("Check() = %v", err)
			}
		})
	}
}

// TestCRDIsValid runs the API server's own checks of a
// CustomResourceDefinition on the generated CRD (structural schema, CEL
// rules compiling within their cost budget), which would otherwise only
// show when it is applied to a cluster.
func TestCRDIsValid(t *testing.T) {
	var v1 apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(rolloutdeploy.CRD, &v1); err != nil {
		t.Fatal(err)
	}
	v1.Status.StoredVersions = []string{v1.Spec.Versions[0].Name} // the API server's own doing
	var internal apiextensionsinternal.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &internal, nil); err != nil {
		t.Fatal(err)
	}
	if errs := crdvalidation.ValidateCustomResourceDefinition(t.Context(), &internal); len(errs) > 0 {
		t.Fatalf("the API server would refuse the CRD: %v", errs.ToAggregate())
	}
}

// TestErrorsOfRawObjects checks objects the Go types cannot express (an
// empty string where the field would be omitted, a number out of a Go
// field's range) as kubectl sends them: what the API server refuses, with
// its message, and what it accepts (want empty).
func TestErrorsOfRawObjects(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		set  setter
		want string
	}{
		{name: "empty node group name, group name not a label value",
			set:  setField("eks-workers:v2", "spec", "nodeGroup", "autoScalingGroupName").and(setField("", "spec", "nodeGroup", "name")),
			want: "spec.nodeGroup: Invalid value: name is required when autoScalingGroupName is not a label value"},
		{name: "empty node group name, group name a label value", set: setField("", "spec", "nodeGroup", "name")},
		{name: "node group name, group name not a label value",
			set: setField("eks-workers:v2", "spec", "nodeGroup", "autoScalingGroupName").and(setField("workers", "spec", "nodeGroup", "name"))},
		{name: "status batch beyond int32", set: setField(int64(math.MaxInt32+1), "status", "batch"),
			want: "status.batch: Invalid value: 2147483648: status.batch in body should be less than or equal to 2147483647"},
		{name: "status batch at the int32 maximum", set: setField(int64(math.MaxInt32), "status", "batch")},
		{name: "status desired capacity beyond int32", set: setField(map[string]any{
			"minSize": int64(0), "maxSize": int64(1), "desiredCapacity": int64(1e10), "launchTemplate": map[string]any{"id": "lt-1", "version": "1"},
		}, "status", "original"), want: "status.original.desiredCapacity: Invalid value: 10000000000: status.original.desiredCapacity in body should be less than or equal to 2147483647"},
		{name: "status evictions below 0", set: setField([]any{map[string]any{
			"name": "n", "instanceID": "i-1", "batch": int64(1), "step": "Terminated", "evictions": int64(-1),
		}}, "status", "nodes"), want: "status.nodes[0].evictions: Invalid value: -1: status.nodes[0].evictions in body should be greater than or equal to 0"},
		// What the controller never writes and must not act on
		// (plan.CheckStatus), where one field settles it.
		{name: "status batch below 0", set: setField(int64(-1), "status", "batch"),
			want: "status.batch: Invalid value: -1: status.batch in body should be greater than or equal to 0"},
		{name: "status surge above 100", set: setField(int64(101), "status", "surge"),
			want: "status.surge: Invalid value: 101: status.surge in body should be less than or equal to 100"},
		{name: "status maxUnavailable above 100", set: setField(int64(1000), "status", "maxUnavailable"),
			want: "status.maxUnavailable: Invalid value: 1000: status.maxUnavailable in body should be less than or equal to 100"},
		{name: "status maxUnavailable 0 (not resolved yet)", set: setField(int64(0), "status", "maxUnavailable")},
		{name: "status target version not a number", set: setField(map[string]any{"id": "lt-1", "version": "$Latest"}, "status", "target"),
			want: "target.version must be a version number"},
		{name: "status original sizes out of order", set: setField(map[string]any{
			"minSize": int64(5), "maxSize": int64(10), "desiredCapacity": int64(3), "launchTemplate": map[string]any{"id": "lt-1", "version": "$Latest"},
		}, "status", "original"), want: "sizes must be minSize <= desiredCapacity <= maxSize"},
		{name: "status draining node without a deadline", set: setField([]any{map[string]any{
			"name": "n", "instanceID": "i-1", "batch": int64(1), "step": "Draining",
		}}, "status", "nodes"), want: "a Draining node needs drainDeadline"},
		{name: "status waiting node without drainedTime", set: setField([]any{map[string]any{
			"name": "n", "instanceID": "i-1", "batch": int64(1), "step": "WaitingAfterDrain",
		}}, "status", "nodes"), want: "a WaitingAfterDrain node needs drainedTime"},
		{name: "status terminating node without terminationTime", set: setField([]any{map[string]any{
			"name": "n", "instanceID": "i-1", "batch": int64(1), "step": "Terminating",
		}}, "status", "nodes"), want: "a Terminating node needs terminationTime"},
		{name: "status draining node with a deadline", set: setField([]any{map[string]any{
			"name": "n", "instanceID": "i-1", "batch": int64(1), "step": "Draining", "drainDeadline": "2026-11-23T12:15:00Z",
		}}, "status", "nodes")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": rolloutv1.SchemeGroupVersion.String(), "kind": rolloutv1.Kind,
				"metadata": map[string]any{"name": "raw"},
				"spec":     map[string]any{"nodeGroup": map[string]any{"autoScalingGroupName": "eks-workers"}},
			}}
			tc.set(u.Object)
			got := c.Errors(t.Context(), u).ToAggregate()
			switch {
			case tc.want == "" && got != nil:
				t.Errorf("Errors() = %v, want none", got)
			case tc.want != "" && (got == nil || !strings.Contains(got.Error(), tc.want)):
				t.Errorf("Errors() = %v, want %q", got, tc.want)
			}
		})
	}
}

// setter changes a raw object.
type setter func(obj map[string]any)

// setField sets the field at path to value.
func setField(value any, path ...string) setter {
	return func(obj map[string]any) {
		if err := unstructured.SetNestedField(obj, value, path...); err != nil {
			panic(err)
		}
	}
}

// and runs s, then next.
func (s setter) and(next setter) setter {
	return func(obj map[string]any) { s(obj); next(obj) }
}
