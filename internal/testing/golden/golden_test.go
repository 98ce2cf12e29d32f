package golden

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/node/render"
)

// recorder is a testing.TB that records failures instead of failing;
// Fatal ends the goroutine as testing does.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, firstLine(fmt.Sprintf(format, args...)))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) {
	r.failures = append(r.failures, firstLine(fmt.Sprint(args...)))
	runtime.Goexit()
}

// failures runs check with a recorder and returns what it reported.
func failures(t *testing.T, check func(tb testing.TB)) []string {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(r)
	}()
	<-done
	return r.failures
}

// withUpdate runs f as under go test -update.
func withUpdate(t *testing.T, f func()) {
	t.Helper()
	saved := *update
	*update = true
	defer func() { *update = saved }()
	f()
}

// writeFiles replaces dir with files, given as text.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	tree := make(map[string][]byte, len(files))
	for rel, data := range files {
		tree[rel] = []byte(data)
	}
	writeTree(t, dir, tree)
}

func TestCompareFile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"out.golden": "same\n"})
	tests := []struct {
		name string
		file string
		got  string
		want []string
	}{
		{name: "equal", file: "out.golden", got: "same\n"},
		{name: "differs", file: "out.golden", got: "other\n", want: []string{filepath.Join(dir, "out.golden") + " differs (run go test -update to accept):"}},
		{name: "missing", file: "absent.golden", got: "x", want: []string{"open " + filepath.Join(dir, "absent.golden") + ": no such file or directory (run go test -update to create it)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := failures(t, func(tb testing.TB) { CompareFile(tb, filepath.Join(dir, tc.file), []byte(tc.got)) })
			if !slices.Equal(got, tc.want) {
				t.Errorf("failures = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCompareFileUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.golden")
	withUpdate(t, func() {
		if f := failures(t, func(tb testing.TB) { CompareFile(tb, path, []byte("new\n")) }); len(f) != 0 {
			t.Fatalf("update failed: %q", f)
		}
	})
	if data := Read(t, path); string(data) != "new\n" {
		t.Errorf("written %q, want %q", data, "new\n")
	}
}

func TestCompareTree(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"etc/a.conf": "a\n", "b": "b\n"})
	tests := []struct {
		name string
		dir  string
		got  map[string][]byte
		want []string
	}{
		{name: "same", dir: dir, got: map[string][]byte{"etc/a.conf": []byte("a\n"), "b": []byte("b\n")}},
		{name: "content differs", dir: dir, got: map[string][]byte{"etc/a.conf": []byte("A\n"), "b": []byte("b\n")},
			want: []string{filepath.Join(dir, "etc/a.conf") + " differs (run go test -update to accept):"}},
		{name: "file missing", dir: dir, got: map[string][]byte{"b": []byte("b\n")},
			want: []string{filepath.Join(dir, "etc/a.conf") + ": golden file, but no such output (run go test -update to accept)"}},
		{name: "file unexpected", dir: dir, got: map[string][]byte{"etc/a.conf": []byte("a\n"), "b": []byte("b\n"), "c": nil},
			want: []string{filepath.Join(dir, "c") + ": output without a golden file (run go test -update to accept)"}},
		{name: "missing dir holds no files", dir: filepath.Join(dir, "none"), got: map[string][]byte{}},
		{name: "missing dir with output", dir: filepath.Join(dir, "none"), got: map[string][]byte{"b": nil},
			want: []string{filepath.Join(dir, "none", "b") + ": output without a golden file (run go test -update to accept)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := failures(t, func(tb testing.TB) { CompareTree(tb, tc.dir, tc.got) })
			if !slices.Equal(got, tc.want) {
				t.Errorf("failures = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCompareTreeUpdate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "case")
	writeFiles(t, dir, map[string]string{"stale": "old\n", "etc/a.conf": "old\n"})
	tree := map[string][]byte{"etc/a.conf": []byte("new\n"), "usr/b": []byte("b\n")}
	withUpdate(t, func() {
		if f := failures(t, func(tb testing.TB) { CompareTree(tb, dir, tree) }); len(f) != 0 {
			t.Fatalf("update failed: %q", f)
		}
	})
	got := ReadTree(t, dir)
	if len(got) != 2 || string(got["etc/a.conf"]) != "new\n" || string(got["usr/b"]) != "b\n" {
		t.Errorf("tree after update = %q, want etc/a.conf and usr/b only", got)
	}
}

func TestCompareRendered(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"etc/a.conf": "a\n"})
	tests := []struct {
		name  string
		files []render.File
		want  []string
	}{
		{name: "node paths below dir", files: []render.File{{Path: "/etc/a.conf", Data: []byte("a\n")}}},
		{name: "rendered twice", files: []render.File{{Path: "/etc/a.conf", Data: []byte("a\n")}, {Path: "/etc/a.conf", Data: []byte("a\n")}},
			want: []string{"path /etc/a.conf rendered twice"}},
		{name: "relative path", files: []render.File{{Path: "etc/a.conf", Data: []byte("a\n")}},
			want: []string{`path "etc/a.conf" is not absolute`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := failures(t, func(tb testing.TB) { CompareRendered(tb, dir, tc.files) })
			if !slices.Equal(got, tc.want) {
				t.Errorf("failures = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGlobAndCases(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"one/in": "", "two/in": "", "fuzz/FuzzX/seed": "", "top.txt": ""})
	if got, want := Glob(t, filepath.Join(dir, "*", "in"), 2), []string{filepath.Join(dir, "one/in"), filepath.Join(dir, "two/in")}; !slices.Equal(got, want) {
		t.Errorf("Glob = %q, want %q", got, want)
	}
	if got, want := Cases(t, dir, 2), []string{"one", "two"}; !slices.Equal(got, want) {
		t.Errorf("Cases = %q, want %q", got, want)
	}
	pattern := filepath.Join(dir, "*", "in")
	wantGlob := []string{pattern + " matches 2 files, want at least 3"}
	if got := failures(t, func(tb testing.TB) { Glob(tb, pattern, 3) }); !slices.Equal(got, wantGlob) {
		t.Errorf("Glob failures = %q, want %q", got, wantGlob)
	}
	wantCases := []string{dir + " holds 2 case directories, want at least 3"}
	if got := failures(t, func(tb testing.TB) { Cases(tb, dir, 3) }); !slices.Equal(got, wantCases) {
		t.Errorf("Cases failures = %q, want %q", got, wantCases)
	}
}

// firstLine is the first line of a failure message, without the diff.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
