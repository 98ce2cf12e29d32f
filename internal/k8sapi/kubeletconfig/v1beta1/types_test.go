package v1beta1_test

import (
	"reflect"
	"testing"
	"time"

	logsapi "k8s.io/component-base/logs/api/v1"
	upstream "k8s.io/kubelet/config/v1beta1"
	"sigs.k8s.io/randfill"

	"github.com/nodeboot/nodeboot/internal/k8sapi/gentypes"
	lean "github.com/nodeboot/nodeboot/internal/k8sapi/kubeletconfig/v1beta1"
)

func TestGeneratedCodeIsCurrent(t *testing.T) {
	if err := gentypes.Stale(gentypes.KubeletConfigV1beta1); err != nil {
		t.Fatal(err)
	}
}

// pairs adds the hand-written logging duration to the shared pairs.
func pairs() map[reflect.Type]reflect.Type {
	p := map[reflect.Type]reflect.Type{
		reflect.TypeFor[logsapi.TimeOrMetaDuration](): reflect.TypeFor[lean.TimeOrMetaDuration](),
	}
	for k, v := range gentypes.Pairs {
		p[k] = v
	}
	return p
}

func TestSameShapeAsUpstream(t *testing.T) {
	err := gentypes.SameShape(reflect.TypeFor[lean.KubeletConfiguration](), reflect.TypeFor[upstream.KubeletConfiguration](), pairs())
	if err != nil {
		t.Fatal(err)
	}
	err = gentypes.SameShape(reflect.TypeFor[lean.TimeOrMetaDuration](), reflect.TypeFor[logsapi.TimeOrMetaDuration](), gentypes.Pairs)
	if err != nil {
		t.Fatal(err)
	}
}

// filler adds the logging duration to the shared random filler.
func filler(seed int64) *randfill.Filler {
	d := func(c randfill.Continue) (time.Duration, bool) {
		return time.Duration(c.Int63n(int64(time.Minute))), c.Intn(2) == 0
	}
	return gentypes.Filler(seed).Funcs(
		func(t *logsapi.TimeOrMetaDuration, c randfill.Continue) {
			t.Duration.Duration, t.SerializeAsString = d(c)
		},
		func(t *lean.TimeOrMetaDuration, c randfill.Continue) { t.Duration.Duration, t.SerializeAsString = d(c) },
	)
}

// TestEncodingAgreesWithUpstream fills each side with random values; the
// other side must decode the encoding strictly and encode it identically.
func TestEncodingAgreesWithUpstream(t *testing.T) {
	for seed := range int64(100) {
		var up upstream.KubeletConfiguration
		filler(seed).Fill(&up)
		if err := gentypes.RoundTrip(&up, &lean.KubeletConfiguration{}); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var l lean.KubeletConfiguration
		filler(seed).Fill(&l)
		if err := gentypes.RoundTrip(&l, &upstream.KubeletConfiguration{}); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

func TestTimeOrMetaDurationAgreesWithUpstream(t *testing.T) {
	for _, in := range []string{`"5s"`, `5000000000`, `"5"`, `null`, `true`, `"1m30s"`, `1.5`, `-3`} {
		var l lean.TimeOrMetaDuration
		var u logsapi.TimeOrMetaDuration
		err, upErr := l.UnmarshalJSON([]byte(in)), u.UnmarshalJSON([]byte(in))
		if (err == nil) != (upErr == nil) || err != nil && err.Error() != upErr.Error() {
			t.Errorf("%s: error %v, upstream %v", in, err, upErr)
			continue
		}
		if err != nil {
			continue
		}
		a, _ := l.MarshalJSON()
		b, _ := u.MarshalJSON()
		if string(a) != string(b) {
			t.Errorf("%s: encodes as %s, upstream %s", in, a, b)
		}
	}
}

func TestConstantsAgreeWithUpstream(t *testing.T) {
	if lean.SchemeGroupVersion.String() != upstream.SchemeGroupVersion.String() || lean.GroupName != upstream.GroupName {
		t.Errorf("group version %s, upstream %s", lean.SchemeGroupVersion, upstream.SchemeGroupVersion)
	}
	if lean.HairpinVeth != upstream.HairpinVeth || string(lean.KubeletAuthorizationModeWebhook) != string(upstream.KubeletAuthorizationModeWebhook) {
		t.Error("constants differ from upstream")
	}
}
