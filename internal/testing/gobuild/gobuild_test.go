package gobuild

import (
	"debug/buildinfo"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildMatchesMakeBuild builds a command and reads the settings the Go
// toolchain recorded in it: they must be the ones `make build` uses, or
// the tests would compile the dependencies again in another configuration.
func TestBuildMatchesMakeBuild(t *testing.T) {
	tests := []struct {
		name, tags string
	}{
		{"no tags", ""},
		{"with tags", "celexec,faultinject"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "hello")
			if err := Build(t.Context(), ".", out, "./testdata/hello", tc.tags); err != nil {
				t.Fatal(err)
			}
			info, err := buildinfo.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"CGO_ENABLED": "0", "-trimpath": "true", "-tags": tc.tags}
			for _, s := range info.Settings {
				if w, ok := want[s.Key]; ok {
					if s.Value != w {
						t.Errorf("%s = %q, want %q", s.Key, s.Value, w)
					}
					delete(want, s.Key)
				}
			}
			if tc.tags == "" {
				delete(want, "-tags") // not recorded when empty
			}
			if len(want) != 0 {
				t.Errorf("settings %v not recorded in %v", want, info.Settings)
			}
			if b, err := exec.Command(out).Output(); err != nil || strings.TrimSpace(string(b)) != "hello" {
				t.Errorf("built command says %q, %v", b, err)
			}
		})
	}
}

// TestBuildReportsCompilerOutput checks that a failed build says why.
func TestBuildReportsCompilerOutput(t *testing.T) {
	err := Build(t.Context(), ".", filepath.Join(t.TempDir(), "x"), "./testdata/missing", "")
	if err == nil || !strings.Contains(err.Error(), "testdata/missing") {
		t.Fatalf("Build of a missing package = %v, want an error naming it", err)
	}
}
