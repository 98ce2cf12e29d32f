package validation

import (
	"slices"
	"strings"
	"testing"

	upstream "k8s.io/apimachinery/pkg/util/validation"
)

var nameCases = []string{
	"", "a", "A", "0", "-", "_", ".", "a-b", "a_b", "a.b", "-a", "a-", "a.", ".a", "a b", "ü", "aü",
	"example.com/name", "/name", "example.com/", "a/b/c", "Example.com/name", "ex_ample.com/name", "a..b/c",
	".example.com/x", "example.com./x", "kubernetes.io/hostname", "node.kubernetes.io/instance-type",
	strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 253), strings.Repeat("a", 254),
	strings.Repeat("a", 254) + "/b", strings.Repeat("a.", 127) + "a", "a\n", "\na", "a/" + strings.Repeat("b", 64),
}

func TestAgreesWithAPIMachinery(t *testing.T) {
	for _, s := range nameCases {
		checkNames(t, s)
	}
}

func FuzzNames(f *testing.F) {
	for _, s := range nameCases {
		f.Add(s)
	}
	f.Fuzz(checkNames)
}

func checkNames(t *testing.T, s string) {
	t.Helper()
	for _, c := range []struct {
		name      string
		got, want []string
	}{
		{"IsQualifiedName", IsQualifiedName(s), upstream.IsQualifiedName(s)},
		{"IsValidLabelValue", IsValidLabelValue(s), upstream.IsValidLabelValue(s)},
		{"IsDNS1123Subdomain", IsDNS1123Subdomain(s), upstream.IsDNS1123Subdomain(s)},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s(%q) = %q, the API machinery says %q", c.name, s, c.got, c.want)
		}
	}
	if got, want := RegexError("m", s), upstream.RegexError("m", s); got != want {
		t.Errorf("RegexError = %q, upstream %q", got, want)
	}
}
