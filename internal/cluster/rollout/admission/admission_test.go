package admission

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
