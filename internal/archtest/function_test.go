package archtest

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/moduleroot"
)

// maxFunctionLines is the longest a function may be without a reason: over
// 40 lines is a smell, over 60 needs a reason (docs/architecture.md).
const maxFunctionLines = 60

// longFunctions are the functions allowed over maxFunctionLines, by
// "path:Receiver.Name", with the reason. The list only shrinks: a listed
// function that is no longer long fails the test until it is removed here.
var longFunctions = map[string]string{}

// TestFunctionLength lists the functions of non-test, non-generated Go
// files longer than maxFunctionLines that are not in longFunctions, and
// reports the distribution of lengths.
func TestFunctionLength(t *testing.T) {
	root, err := moduleroot.Find()
	if err != nil {
		t.Fatal(err)
	}
	lengths := functionLengths(t, root)
	if len(lengths) < 1000 {
		t.Fatalf("measured only %d functions; the walk is broken", len(lengths))
	}
	var all []int
	for name, n := range lengths {
		all = append(all, n)
		_, allowed := longFunctions[name]
		if n > maxFunctionLines && !allowed {
			t.Errorf("%s is %d lines long (limit %d): split it along its seams, or list it in longFunctions with the reason", name, n, maxFunctionLines)
		}
	}
	for name := range longFunctions {
		if n, ok := lengths[name]; !ok || n <= maxFunctionLines {
			t.Errorf("%s is listed in longFunctions but is %d lines long now: remove it from the list", name, n)
		}
	}
	slices.Sort(all)
	over40 := len(all) - sortIndex(all, 41)
	t.Logf("%d functions: median %d lines, p90 %d, over 40 lines: %d, longest %d", len(all), all[len(all)/2], all[len(all)*9/10], over40, all[len(all)-1])
}

// sortIndex is the index of the first value ≥ v in sorted.
func sortIndex(sorted []int, v int) int {
	i, _ := slices.BinarySearch(sorted, v)
	return i
}

// functionLengths returns the length in lines of every function with a
// body in the module's hand-written, non-test Go files.
func functionLengths(t *testing.T, root string) map[string]int {
	out := map[string]int{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (name == "testdata" || strings.HasPrefix(name, ".") || name == "tools") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		return measureFile(fset, root, p, out)
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// measureFile adds the functions of the file at p, unless it is generated.
func measureFile(fset *token.FileSet, root, p string, out map[string]int) error {
	src, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	f, err := parser.ParseFile(fset, p, src, parser.ParseComments)
	if err != nil {
		return err
	}
	if ast.IsGenerated(f) || bytes.Contains(src, []byte("// Code generated")) {
		return nil
	}
	rel, _ := filepath.Rel(root, p)
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
		out[fmt.Sprintf("%s:%s", filepath.ToSlash(rel), funcName(fd))] = n
	}
	return nil
}

// funcName is Name, or Receiver.Name for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if idx, ok := typ.(*ast.IndexExpr); ok {
		typ = idx.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}
