package archtest

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/moduleroot"
)

const module = "github.com/nodeboot/nodeboot/"

// floor is one family of packages and what its non-test files may import.
type floor struct {
	name string
	// mayImport are the module-relative path prefixes it may import.
	mayImport []string
	// noStd are standard-library packages it may not import.
	noStd []string
}

// shared lowest floor: API types and the lean Kubernetes type copies.
var shared = []string{"api/", "internal/k8sapi/", "internal/lazyregexp", "internal/version"}

// pureStd are the packages that reach the host: files, processes, network.
var pureStd = []string{"os", "os/exec", "os/signal", "net", "net/http", "syscall", "path/filepath"}

var floors = []floor{
	{name: "internal/config/", mayImport: append([]string{"internal/config/"}, shared...), noStd: pureStd},
	{name: "internal/author/", mayImport: append([]string{"internal/author/", "internal/config/"}, shared...), noStd: pureStd},
	{name: "internal/inroot", mayImport: shared},
	{name: "internal/aws/", mayImport: append([]string{"internal/aws/", "internal/config/", "internal/inroot"}, shared...)},
	{name: "internal/node/", mayImport: append([]string{"internal/node/", "internal/config/", "internal/aws/", "internal/inroot"}, shared...)},
	// The cluster side may embed its own manifests (deploy/rollout's CRD,
	// which the command line checks rollouts against).
	{name: "internal/cluster/", mayImport: append([]string{"internal/cluster/", "internal/config/", "internal/aws/", "deploy/"}, shared...)},
}

// TestFloors fails when a package imports from a floor above its own, or
// when the pure floors import the standard library's host access.
func TestFloors(t *testing.T) {
	root, err := moduleroot.Find()
	if err != nil {
		t.Fatal(err)
	}
	pkgs := 0
	for _, dir := range packageDirs(t, root) {
		rel, _ := filepath.Rel(root, dir)
		rel = filepath.ToSlash(rel)
		f, ok := floorOf(rel)
		if !ok {
			continue
		}
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			if _, none := err.(*build.NoGoError); none {
				continue
			}
			t.Fatalf("%s: %v", rel, err)
		}
		pkgs++
		for _, imp := range pkg.Imports {
			if msg := f.refuses(imp); msg != "" {
				t.Errorf("%s imports %s: %s", rel, imp, msg)
			}
		}
	}
	if pkgs < 40 {
		t.Fatalf("checked only %d packages; the walk is broken", pkgs)
	}
}

// refuses says why f may not import imp, or "".
func (f floor) refuses(imp string) string {
	if slices.Contains(f.noStd, imp) {
		return f.name + " is pure: it reads bytes and returns data, the node side does the I/O"
	}
	local, ok := strings.CutPrefix(imp, module)
	if !ok {
		return ""
	}
	for _, p := range f.mayImport {
		if strings.HasPrefix(local+"/", p) || strings.HasPrefix(local, p) && strings.HasSuffix(p, "/") {
			return ""
		}
	}
	return f.name + " may import only " + strings.Join(f.mayImport, ", ")
}

// floorOf returns the floor the module-relative directory rel is on.
func floorOf(rel string) (floor, bool) {
	for _, f := range floors {
		if strings.HasPrefix(rel+"/", f.name) || strings.HasPrefix(rel, f.name) && strings.HasSuffix(f.name, "/") {
			return f, true
		}
	}
	return floor{}, false
}

// packageDirs lists the directories under root that may hold packages.
func packageDirs(t *testing.T, root string) []string {
	var dirs []string
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			dirs = append(dirs, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}
