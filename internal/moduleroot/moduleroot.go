// Package moduleroot finds the nodeboot source tree for tests, generators
// and test harnesses that read or build files of the repository.
package moduleroot

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
)

// ErrNotInModule means no directory at or above the working directory
// holds nodeboot's go.mod.
var ErrNotInModule = errors.New("not inside the nodeboot module")

// Find walks up from the working directory to the directory of nodeboot's
// go.mod (a go.mod of another module, such as test/tools/*, is passed by).
func Find() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module github.com/nodeboot/nodeboot\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNotInModule
		}
		dir = parent
	}
}
