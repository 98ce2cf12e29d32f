package v1_test

import (
	"reflect"
	"testing"

	upstream "k8s.io/kubelet/config/v1"

	"github.com/nodeboot/nodeboot/internal/k8sapi/gentypes"
	lean "github.com/nodeboot/nodeboot/internal/k8sapi/kubeletconfig/v1"
)

func TestGeneratedCodeIsCurrent(t *testing.T) {
	if err := gentypes.Stale(gentypes.KubeletConfigV1); err != nil {
		t.Fatal(err)
	}
}

func TestSameShapeAsUpstream(t *testing.T) {
	err := gentypes.SameShape(reflect.TypeFor[lean.CredentialProviderConfig](), reflect.TypeFor[upstream.CredentialProviderConfig](), gentypes.Pairs)
	if err != nil {
		t.Fatal(err)
	}
}

func TestEncodingAgreesWithUpstream(t *testing.T) {
	for seed := range int64(100) {
		var up upstream.CredentialProviderConfig
		gentypes.Filler(seed).Fill(&up)
		if err := gentypes.RoundTrip(&up, &lean.CredentialProviderConfig{}); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var l lean.CredentialProviderConfig
		gentypes.Filler(seed).Fill(&l)
		if err := gentypes.RoundTrip(&l, &upstream.CredentialProviderConfig{}); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

func TestGroupVersionAgreesWithUpstream(t *testing.T) {
	if lean.SchemeGroupVersion.String() != upstream.SchemeGroupVersion.String() {
		t.Errorf("%s, upstream %s", lean.SchemeGroupVersion, upstream.SchemeGroupVersion)
	}
}
