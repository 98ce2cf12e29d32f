package policy

import (
	"bytes"
	"net/url"
	"testing"
)

// replaceOnce replaces exactly one occurrence of old in der, failing the
// test when there is none.
func replaceOnce(old, new []byte) func(testing.TB, []byte) []byte {
	return func(t testing.TB, der []byte) []byte {
		t.Helper()
		if !bytes.Contains(der, old) {
			t.Fatalf("tamper: % x not found in DER", old)
		}
		return bytes.Replace(der, old, new, 1)
	}
}

func mustParseURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatalf("parse URL %q: %v", s, err)
	}
	return u
}

func int32Ptr(v int32) *int32 { return &v }
