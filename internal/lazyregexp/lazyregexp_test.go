package lazyregexp

import (
	"regexp"
	"slices"
	"sync"
	"testing"
)

func TestCompilesOnFirstUseOnly(t *testing.T) {
	bad := New(`(`) // would panic in regexp.MustCompile
	if bad.String() != `(` {
		t.Fatalf("String() = %q", bad.String())
	}
	defer func() {
		if recover() == nil {
			t.Fatal("using an expression that does not compile did not panic")
		}
	}()
	bad.MatchString("x")
}

func TestSameAnswersAsRegexp(t *testing.T) {
	const expr = `v?(\d+)\.(\d+)`
	lazy, eager := New(expr), regexp.MustCompile(expr)
	var wg sync.WaitGroup
	for _, s := range []string{"", "v1.2", "x 10.20 and 3.4", "nothing"} {
		wg.Go(func() { // concurrent first uses compile once
			if lazy.MatchString(s) != eager.MatchString(s) {
				t.Errorf("MatchString(%q) differs", s)
			}
			if got, want := lazy.FindStringSubmatch(s), eager.FindStringSubmatch(s); !slices.Equal(got, want) {
				t.Errorf("FindStringSubmatch(%q) = %q, want %q", s, got, want)
			}
			if got, want := lazy.FindSubmatch([]byte(s)), eager.FindSubmatch([]byte(s)); len(got) != len(want) {
				t.Errorf("FindSubmatch(%q) = %q, want %q", s, got, want)
			}
		})
	}
	wg.Wait()
}
