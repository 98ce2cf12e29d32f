package apply

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/node/render"
	"github.com/nodeboot/nodeboot/internal/testing/nodetest"
)

// set renders the files of one configuration generation.
func set(gen string, paths ...string) []render.File {
	var out []render.File
	for _, p := range paths {
		out = append(out, render.File{Path: p, Mode: 0o644, Data: []byte(gen + " " + p + "\n")})
	}
	return out
}

func sameTree(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	var diffs []string
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			diffs = append(diffs, k+": "+strings.TrimSpace(g)+" (want "+strings.TrimSpace(v)+")")
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, k+": unexpected")
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		t.Errorf("%s:\n  %s", what, strings.Join(diffs, "\n  "))
	}
}

var paths = []string{"/etc/a", "/etc/b", "/etc/kubernetes/c", "/etc/kubernetes/d"}

// applied returns a root holding generation "old" of paths.
func applied(t *testing.T) (string, map[string]string) {
	t.Helper()
	root := t.TempDir()
	if _, err := (Writer{Root: root}).Apply(set("old", paths...), nil); err != nil {
		t.Fatal(err)
	}
	return root, nodetest.Tree(t, root, nil)
}

func TestDirectoryWhereAFileShouldBeChangesNothing(t *testing.T) {
	root, _ := applied(t)
	// The last file to install is a non-empty directory now.
	last := filepath.Join(root, "etc/kubernetes/d")
	if err := os.Remove(last); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(last, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := nodetest.Tree(t, root, nil)
	_, err := (Writer{Root: root}).Apply(set("new", paths...), nil)
	if err == nil || !strings.Contains(err.Error(), "/etc/kubernetes/d: is a directory") {
		t.Fatalf("error = %v, want one saying /etc/kubernetes/d is a directory", err)
	}
	sameTree(t, "root after the refused apply", nodetest.Tree(t, root, nil), before)
}

func TestUndeletableStaleFileChangesNothing(t *testing.T) {
	root, _ := applied(t)
	// A file that is no longer rendered cannot be removed: a directory
	// stands where the managed drop-in was.
	if err := os.Remove(filepath.Join(root, "etc/kubernetes/d")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "etc/kubernetes/d/x"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := nodetest.Tree(t, root, nil)
	_, err := (Writer{Root: root}).Apply(set("new", paths[:3]...), []string{"/etc/kubernetes/d"})
	if err == nil || !strings.Contains(err.Error(), "/etc/kubernetes/d: is a directory") {
		t.Fatalf("error = %v, want one saying /etc/kubernetes/d is a directory", err)
	}
	sameTree(t, "root after the refused apply", nodetest.Tree(t, root, nil), before)
}

func TestBindMountedTargetChangesNothing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		files  []render.File
		absent []string
	}{
		{name: "file to replace", files: set("new", paths...)},
		{name: "stale file to remove", files: set("new", paths[:3]...), absent: []string{"/etc/kubernetes/d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, _ := applied(t)
			src := filepath.Join(t.TempDir(), "mounted")
			if err := os.WriteFile(src, []byte("mounted\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			nodetest.BindMount(t, src, filepath.Join(root, "etc/kubernetes/d"))
			before := nodetest.Tree(t, root, nil)
			_, err := (Writer{Root: root}).Apply(tc.files, tc.absent)
			if err == nil || !strings.Contains(err.Error(), "/etc/kubernetes/d") || !strings.Contains(err.Error(), "mount") {
				t.Fatalf("error = %v, want one naming /etc/kubernetes/d as a mount point", err)
			}
			sameTree(t, "root after the refused apply", nodetest.Tree(t, root, nil), before)
		})
	}
}

// noTemps fails when nodeboot temporary files remain under root.
func noTemps(t *testing.T, root string) {
	t.Helper()
	for p := range nodetest.Tree(t, root, nil) {
		if strings.Contains(filepath.Base(strings.TrimSuffix(p, "/")), ".nodeboot-") {
			t.Errorf("temporary file left: %s", p)
		}
	}
}

// errInjected is the failure the tests inject into a commit step.
var errInjected = errors.New("injected failure")

// TestFailureAfterTheFirstRenameRestoresThePreviousSet fails each commit
// step in turn, after the steps before it were done: the previous set must
// be back, whole, with no temporary file left.
func TestFailureAfterTheFirstRenameRestoresThePreviousSet(t *testing.T) {
	newFiles := set("new", paths[:3]...)
	newFiles = append(newFiles, render.File{Path: "/etc/kubernetes/e", Mode: 0o600, Data: []byte("new e\n")})
	for step := range 5 { // 4 writes (3 replacing, 1 new), then 1 removal
		t.Run(fmt.Sprintf("step %d fails", step+1), func(t *testing.T) {
			root, old := applied(t)
			w := Writer{Root: root, beforeStep: func(i int, _ string) error {
				if i == step {
					return errInjected
				}
				return nil
			}}
			_, err := w.Apply(newFiles, []string{"/etc/kubernetes/d"})
			if !errors.Is(err, errInjected) {
				t.Fatalf("error = %v, want the injected failure", err)
			}
			sameTree(t, "root after the failed apply", nodetest.Tree(t, root, nil), old)
			noTemps(t, root)
		})
	}
}

// TestCrashDuringTheRenamesConverges stops the run in the middle of its
// steps as a kill would (no rollback): the journal lets the next run put the
// previous set back, whole, before it does anything else, and then install
// its own.
func TestCrashDuringTheRenamesConverges(t *testing.T) {
	for step := range 4 { // 3 writes, then 1 removal
		t.Run(fmt.Sprintf("killed before step %d", step+1), func(t *testing.T) {
			root, old := applied(t)
			crashing := Writer{Root: root, beforeStep: func(i int, _ string) error {
				if i == step {
					return errSimulatedCrash
				}
				return nil
			}}
			if _, err := crashing.Apply(set("new", paths[:3]...), []string{"/etc/kubernetes/d"}); !errors.Is(err, errSimulatedCrash) {
				t.Fatalf("error = %v", err)
			}
			restored, err := Recover(root)
			if err != nil {
				t.Fatal(err)
			}
			if len(restored) != 4 {
				t.Errorf("restored %v, want the 4 paths of the interrupted set", restored)
			}
			// Only temporary files may remain: the next Apply removes them.
			got := nodetest.Tree(t, root, nil)
			for p := range got {
				if strings.Contains(p, ".nodeboot-") {
					delete(got, p)
				}
			}
			sameTree(t, "after recovery", got, old)

			if _, err := (Writer{Root: root}).Apply(set("new", paths[:3]...), []string{"/etc/kubernetes/d"}); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"etc/": "", "etc/kubernetes/": "", "var/": "", "var/lib/": "", "var/lib/nodeboot/": ""}
			for _, f := range set("new", paths[:3]...) {
				want[strings.TrimPrefix(f.Path, "/")] = string(f.Data)
			}
			sameTree(t, "after a rerun with the new configuration", nodetest.Tree(t, root, nil), want)
		})
	}
}

func TestStaleTemporaryFilesAreRemoved(t *testing.T) {
	root, old := applied(t)
	for _, p := range []string{"etc/.a.nodeboot-123", "etc/kubernetes/.c.nodeboot-old-456"} {
		if err := os.WriteFile(filepath.Join(root, p), []byte("left by a killed run"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := (Writer{Root: root}).Apply(set("old", paths...), nil); err != nil {
		t.Fatal(err)
	}
	sameTree(t, "root after a rerun", nodetest.Tree(t, root, nil), old)
}
