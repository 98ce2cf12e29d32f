// Command gen-k8sapi writes the generated lean Kubernetes API types of
// internal/k8sapi (see internal/k8sapi/gentypes). Run it from the
// module root, or through `go generate ./internal/k8sapi/...`, after
// upgrading k8s.io/kubelet, k8s.io/api or k8s.io/component-base; the lean
// packages' tests fail until it has been run.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/nodeboot/nodeboot/internal/k8sapi/gentypes"
	"github.com/nodeboot/nodeboot/internal/moduleroot"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen-k8sapi:", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := moduleroot.Find()
	if err != nil {
		return err
	}
	for _, t := range gentypes.Targets {
		src, err := gentypes.Generate(t)
		if err != nil {
			return err
		}
		path := filepath.Join(root, t.Dir, gentypes.FileName)
		if err := os.WriteFile(path, src, 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", path)
	}
	return nil
}
