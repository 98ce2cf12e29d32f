package kubelet

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/version"
)

func TestBehaviourFor(t *testing.T) {
	tests := []struct {
		minor uint
		want  behaviour
	}{
		{21, behaviour{}},
		{22, behaviour{raisedAPIRate: true}},
		{26, behaviour{raisedAPIRate: true}},
		{27, behaviour{}},
		{28, behaviour{}},
		{29, behaviour{dropInDir: true, dropInAlphaEnv: true}},
		{30, behaviour{dropInDir: true}},
		{31, behaviour{dropInDir: true}},
		{32, behaviour{dropInDir: true}},
		{33, behaviour{dropInDir: true,
			featureGates: map[string]bool{"DynamicResourceAllocation": true}}},
		{34, behaviour{dropInDir: true, gracefulShutdown: true,
			featureGates: map[string]bool{"DynamicResourceAllocation": true, "MutableCSINodeAllocatableCount": true}}},
		{35, behaviour{dropInDir: true, gracefulShutdown: true, gpuPresentLabel: true,
			featureGates: map[string]bool{"DynamicResourceAllocation": true, "MutableCSINodeAllocatableCount": true}}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("1.%d", tc.minor), func(t *testing.T) {
			if got := behaviourFor(tc.minor); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("behaviourFor(%d) = %+v, want %+v", tc.minor, got, tc.want)
			}
		})
	}
}

func TestVersionGatesSorted(t *testing.T) {
	for i := 1; i < len(versionGates); i++ {
		if versionGates[i].from < versionGates[i-1].from {
			t.Errorf("versionGates[%d].from = %d < previous %d", i, versionGates[i].from, versionGates[i-1].from)
		}
	}
}

func TestKubeletMinor(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    uint
		wantErr error
	}{
		{name: "release", in: "v1.34.4", want: 34},
		{name: "eks build", in: "v1.35.0-eks-a1b2c3d", want: 35},
		{name: "eks pre-release counts as its minor", in: "v1.33.0-eks-1", want: 33},
		{name: "no v", in: "1.30.2", want: 30},
		{name: "major minor only", in: "v1.31", want: 31},
		{name: "empty", in: "", wantErr: ErrMissingKubeletVersion},
		{name: "major only", in: "v1", wantErr: ErrInvalidKubeletVersion},
		{name: "major 2", in: "v2.0.0", wantErr: ErrInvalidKubeletVersion},
		{name: "text", in: "Kubernetes v1.34.4", wantErr: ErrInvalidKubeletVersion},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := kubeletMinor(tc.in)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("kubeletMinor(%q) error = %v, want %v", tc.in, err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("kubeletMinor(%q) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}

// versionCases are kubelet version strings at the edges of the syntax.
var versionCases = []string{
	"v1.34.4", "1.30.2", "v1.31", "v1", "", "v", "1.", "1.a", "1..2", " \tv1.2", "vv1.2", "V1.2", "1.2.3.4.5",
	"1.2-rc.1+build", "1.2abc", "01.002", "0.1", "00.1", "1.02", "\n1.2", "1.2\nx", "1.2\r", "1.18446744073709551615", "1.18446744073709551616", "Kubernetes v1.34.4",
	"v1.34.4\n", "1.2 ", "1.2.", ".1.2", "-1.2", "1.-2",
}

// TestVersionNumbersAgreeWithParseGeneric compares versionNumbers with the
// apimachinery parser it replaces.
func TestVersionNumbersAgreeWithParseGeneric(t *testing.T) {
	for _, s := range versionCases {
		checkVersionNumbers(t, s)
	}
}

func FuzzVersionNumbers(f *testing.F) {
	for _, s := range versionCases {
		f.Add(s)
	}
	f.Fuzz(checkVersionNumbers)
}

func checkVersionNumbers(t *testing.T, s string) {
	got, ok := versionNumbers(s)
	want, err := version.ParseGeneric(s)
	if ok != (err == nil) {
		t.Fatalf("versionNumbers(%q) ok = %v, ParseGeneric error %v", s, ok, err)
	}
	if ok && !slices.Equal(got, want.Components()) {
		t.Errorf("versionNumbers(%q) = %v, ParseGeneric %v", s, got, want.Components())
	}
}
