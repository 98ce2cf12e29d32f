package v1

import (
	"encoding/json"
	"testing"
	"time"

	upstream "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// jsonCases are JSON values every type is decoded from, both ways.
var jsonCases = []string{
	`null`, `""`, `"2m30s"`, `"1h"`, `"-5s"`, `"1.5h"`, `"90"`, `"2m30"`, `120`, `true`, `{}`, `"\u0032m"`,
	`"2026-01-02T03:04:05Z"`, `"2026-01-02T03:04:05+02:00"`, `"2026-01-02T03:04:05.123Z"`, `"2026-01-02"`, `"not a time"`,
	`{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1"}`, `{"kind":1}`,
}

func TestDecodingAgreesWithUpstream(t *testing.T) {
	for _, in := range jsonCases {
		compare(t, in, &Duration{}, &upstream.Duration{})
		compare(t, in, &Time{}, &upstream.Time{})
		compare(t, in, &TypeMeta{}, &upstream.TypeMeta{})
	}
}

// compare decodes in into both values; they must agree on success and on
// the re-encoded value.
func compare(t *testing.T, in string, lean, up any) {
	t.Helper()
	err, upErr := json.Unmarshal([]byte(in), lean), json.Unmarshal([]byte(in), up)
	if (err == nil) != (upErr == nil) {
		t.Errorf("%T from %s: error %v, upstream %v", lean, in, err, upErr)
		return
	}
	if err != nil {
		return
	}
	got, err1 := json.Marshal(lean)
	want, err2 := json.Marshal(up)
	if err1 != nil || err2 != nil || string(got) != string(want) {
		t.Errorf("%T from %s encodes as %s (%v), upstream %s (%v)", lean, in, got, err1, want, err2)
	}
}

func TestEncodingAgreesWithUpstream(t *testing.T) {
	for _, d := range []time.Duration{0, time.Second, 150 * time.Second, -time.Millisecond, 36 * time.Hour} {
		same(t, Duration{d}, upstream.Duration{Duration: d})
	}
	for _, tm := range []time.Time{{}, time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))} {
		same(t, Time{tm}, upstream.Time{Time: tm})
		same(t, &Time{tm}, &upstream.Time{Time: tm})
	}
	same(t, TypeMeta{Kind: "K", APIVersion: "v"}, upstream.TypeMeta{Kind: "K", APIVersion: "v"})
	same(t, TypeMeta{}, upstream.TypeMeta{})
}

func same(t *testing.T, lean, up any) {
	t.Helper()
	got, err1 := json.Marshal(lean)
	want, err2 := json.Marshal(up)
	if err1 != nil || err2 != nil || string(got) != string(want) {
		t.Errorf("%+v encodes as %s (%v), upstream %s (%v)", lean, got, err1, want, err2)
	}
}
