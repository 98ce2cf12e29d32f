package admission

import (
	"strings"
	"testing"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/yaml"

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
