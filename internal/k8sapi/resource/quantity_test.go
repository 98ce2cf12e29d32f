package resource

import (
	"encoding/json"
	"strings"
	"testing"

	upstream "k8s.io/apimachinery/pkg/api/resource"
)

// quantityCases cover every branch of the syntax, including the odd corners
// the API machinery accepts ("+", ".", "e5" are 0) and rejects (".Ei",
// "-.e-20": a number without digits where it needs arbitrary precision).
var quantityCases = []string{
	"", "0", "1", "-1", "+1", "100Mi", "1Gi", "500m", "1.5", "1.5Gi", ".5", "5.", "1.Ki", "0.000", "-0", "+0.0",
	"1e3", "1E3", "1e+3", "1E-3", "1e-10", "-1e-10", "1e", "1ee", "1e3e", "1e3.5", "1Mi5", "1kK", "1mi", "1ki",
	"1n", "1u", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Ti", "1Pi", "1Ei",
	"+", "-", ".", "-.", "e5", "e-20", "-.e-20", ".e-9", ".e-10", ".Ki", ".Ti", ".Pi", ".Ei", "0.Ei", "0Ei",
	"1 ", " 1", "1 Gi", "1x", "1.5.5", "--1", "+-1", "0x10", "1_000", "١",
	"123456789012345678", "1234567890123456789", "12345678901234567890Ei", "0.0000000001", "0.000000001",
	"9223372036854775807", "9223372036854775808", "1e9999999999", "1e4294967296", "1e99999999999999999999",
	"1" + strings.Repeat("0", 40) + "Ki", "-0.0e-30", "000000000000000000000001",
}

func TestParseQuantityAgreesWithAPIMachinery(t *testing.T) {
	for _, s := range quantityCases {
		checkQuantity(t, s)
	}
}

func FuzzParseQuantity(f *testing.F) {
	for _, s := range quantityCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if hugeExponent(s) {
			t.Skip("the API machinery can take minutes on such exponents")
		}
		checkQuantity(t, s)
	})
}

// hugeExponent reports an e/E exponent of more than four digits: with those
// the API machinery's arbitrary-precision path can run for minutes
// ("1e-2147483648"), so they are compared in the table only.
func hugeExponent(s string) bool {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return false
	}
	digits := strings.TrimLeft(s[i+1:], "+-eE")
	return len(digits) > 4
}

func checkQuantity(t *testing.T, s string) {
	t.Helper()
	got, err := ParseQuantity(s)
	want, wantErr := upstream.ParseQuantity(s)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("ParseQuantity(%q) error = %v, the API machinery says %v", s, err, wantErr)
	}
	if err != nil {
		if err.Error() != wantErr.Error() {
			t.Errorf("ParseQuantity(%q) error = %q, the API machinery says %q", s, err, wantErr)
		}
		return
	}
	if got.Sign() != want.Sign() {
		t.Errorf("ParseQuantity(%q).Sign() = %d, the API machinery says %d", s, got.Sign(), want.Sign())
	}
	if got.String() != s {
		t.Errorf("ParseQuantity(%q).String() = %q", s, got.String())
	}
}

// TestJSONAgreesWithAPIMachinery decodes JSON values both ways; the encoding
// of canonical quantities (what the API machinery writes) is identical.
func TestJSONAgreesWithAPIMachinery(t *testing.T) {
	for _, in := range []string{`"100Mi"`, `"1Gi"`, `2`, `-3`, `1.5`, `" 100Mi "`, `null`, `"1x"`, `""`, `true`, `"1e3"`, `"500m"`} {
		var got Quantity
		var want upstream.Quantity
		err, wantErr := json.Unmarshal([]byte(in), &got), json.Unmarshal([]byte(in), &want)
		if (err == nil) != (wantErr == nil) {
			t.Errorf("%s: error %v, the API machinery says %v", in, err, wantErr)
			continue
		}
		if err == nil && got.Sign() != want.Sign() {
			t.Errorf("%s: sign %d, the API machinery says %d", in, got.Sign(), want.Sign())
		}
	}
	for _, canonical := range []string{"0", "100Mi", "1Gi", "500m", "2", "-3", "1500m", "1e3", "129e6"} {
		want := upstream.MustParse(canonical)
		wantJSON, _ := json.Marshal(want)
		got := MustParse(canonical)
		gotJSON, _ := json.Marshal(got)
		if string(gotJSON) != string(wantJSON) {
			t.Errorf("%s encodes as %s, the API machinery writes %s", canonical, gotJSON, wantJSON)
		}
	}
	var zero Quantity
	if b, _ := json.Marshal(zero); string(b) != `"0"` {
		t.Errorf("zero quantity encodes as %s", b)
	}
}

func TestMustParsePanicsOnBadInput(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParse(\"1x\") did not panic")
		}
	}()
	MustParse("1x")
}
