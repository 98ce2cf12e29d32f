package apply

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nodeboot/nodeboot/internal/node/render"
)

// TestWritesStayInsideSymlinkedRoot: a directory inside the root that is a
// symbolic link (etc/kubernetes -> /elsewhere, as in mounted images) is
// resolved inside the root, as the node will see it, never on the host.
func TestWritesStayInsideSymlinkedRoot(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target func(outside string) string // the link's target
		inRoot func(outside string) string // where the file must land, relative to the root
	}{
		{name: "absolute link", target: func(o string) string { return o }, inRoot: func(o string) string { return o }},
		{name: "relative link climbing out", target: func(o string) string { return "../../../../../../../../.." + o }, inRoot: func(o string) string { return o }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, outside := t.TempDir(), t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, "etc"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(root, tc.inRoot(outside)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(tc.target(outside), filepath.Join(root, "etc/kubernetes")); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(outside, "old"), []byte("host file"), 0o644); err != nil {
				t.Fatal(err)
			}
			files := []render.File{{Path: "/etc/kubernetes/kubelet.conf", Mode: 0o644, Data: []byte("new")}}
			if _, err := (Writer{Root: root}).Apply(files, []string{"/etc/kubernetes/old"}); err != nil {
				t.Fatal(err)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 1 || entries[0].Name() != "old" {
				t.Errorf("the host directory the link names was changed: %v", entries)
			}
			if got := readFile(t, filepath.Join(root, tc.inRoot(outside), "kubelet.conf")); got != "new" {
				t.Errorf("file inside the root = %q", got)
			}
		})
	}
}
