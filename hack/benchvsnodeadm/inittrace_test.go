//go:build nodeadmbench

package benchvsnodeadm

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// initFigures are the medians of GODEBUG=inittrace=1 over several runs of
// one binary. The runtime package's own initialisation is not counted.
type initFigures struct {
	bin string
	// modules is the sum of the init clock times of packages outside the
	// standard library (the first path element has a dot).
	modules float64
	// all is the sum over every package but runtime.
	all float64
	// allocBytes is what the non-standard packages allocate at init.
	allocBytes float64
}

// measureInit runs bin with GODEBUG=inittrace=1 and returns the medians.
func measureInit(t *testing.T, bin string, arg string) initFigures {
	t.Helper()
	var modules, all, alloc []float64
	for range *flagInitRuns {
		var cmd *exec.Cmd
		if arg != "" {
			cmd = rtCommand(bin, arg)
		} else {
			cmd = rtCommand(bin)
		}
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		_ = cmd.Run() // the exit status of --help does not matter; init ran
		m, a, b := sumInitTrace(stderr.Bytes())
		if a == 0 {
			t.Fatalf("%s printed no init trace:\n%s", bin, stderr.String())
		}
		modules, all, alloc = append(modules, m), append(all, a), append(alloc, b)
	}
	return initFigures{bin: bin, modules: median(modules), all: median(all), allocBytes: median(alloc)}
}

// sumInitTrace adds up lines like
// "init k8s.io/klog/v2 @3.4 ms, 0.12 ms clock, 4096 bytes, 17 allocs".
func sumInitTrace(trace []byte) (modulesMs, allMs, moduleBytes float64) {
	sc := bufio.NewScanner(bytes.NewReader(trace))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 9 || f[0] != "init" || f[6] != "clock," || f[1] == "runtime" {
			continue
		}
		ms, err1 := strconv.ParseFloat(f[4], 64)
		b, err2 := strconv.ParseFloat(f[7], 64)
		if err1 != nil || err2 != nil {
			continue
		}
		allMs += ms
		if first, _, _ := strings.Cut(f[1], "/"); strings.Contains(first, ".") {
			modulesMs += ms
			moduleBytes += b
		}
	}
	return modulesMs, allMs, moduleBytes
}

// stdBaseline builds a program that does nothing but import the standard
// library packages pkg links (as seen from dir, built with tags), stripped
// like the agents: what initialising those packages costs on its own.
func stdBaseline(t *testing.T, dir, tags, pkg string) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-tags", tags, "-deps", "-f", "{{if .Standard}}{{.ImportPath}}{{end}}", pkg)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list in %s: %v", dir, err)
	}
	var src strings.Builder
	src.WriteString("package main\n\nimport (\n")
	for _, p := range strings.Fields(string(out)) {
		if importable(p) {
			src.WriteString("\t_ \"" + p + "\"\n")
		}
	}
	src.WriteString(")\n\nfunc main() {}\n")
	mod := t.TempDir()
	mustWrite(t, filepath.Join(mod, "go.mod"), "module stdbaseline\n\ngo 1.24\n")
	mustWrite(t, filepath.Join(mod, "main.go"), src.String())
	bin := filepath.Join(mod, "stdbaseline")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, ".")
	build.Dir = mod
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build std baseline for %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// importable reports whether a program may import the std package p.
func importable(p string) bool {
	for _, e := range strings.Split(p, "/") {
		if e == "internal" || e == "vendor" {
			return false
		}
	}
	return p != "unsafe" && p != "C" && p != "runtime/cgo"
}
