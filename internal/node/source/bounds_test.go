package source

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// TestSourcesAreBounded: a source that would block the read forever (a
// named pipe) or exhaust memory (a file, a drop-in directory or user data
// over MaxSourceSize) is refused with an error naming it, before it is read.
func TestSourcesAreBounded(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A sparse file of 1 GiB: reading it whole would take that much memory.
	huge, err := os.Create(filepath.Join(root, "huge.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := huge.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	huge.Close()
	writeFile(t, filepath.Join(root, "big.yaml"), strings.Repeat("#", MaxSourceSize+1))
	writeFile(t, filepath.Join(root, "fits.yaml"), nodeConfigA+strings.Repeat("#", MaxSourceSize-len(nodeConfigA)))
	// Each drop-in fits, together they do not.
	for _, name := range []string{"a.yaml", "b.yaml", "c.yaml"} {
		writeFile(t, filepath.Join(root, "dropins.d", name), strings.Repeat("#", MaxSourceSize/2))
	}
	tests := []struct {
		name    string
		reader  Reader
		uri     string
		wantErr error
		wantMsg string
	}{
		{name: "named pipe", uri: "file:///fifo", wantMsg: "file:///fifo: ", wantErr: ErrNotRegular},
		{name: "1 GiB file", uri: "file:///huge.yaml", wantMsg: "file:///huge.yaml: ", wantErr: ErrTooLarge},
		{name: "file one byte over", uri: "file:///big.yaml", wantMsg: "larger than 1 MiB", wantErr: ErrTooLarge},
		{name: "drop-ins over the total", uri: "file:///dropins.d/", wantMsg: "file:///dropins.d/: drop-in files total more than 1 MiB", wantErr: ErrTooLarge},
		{name: "user data over the cap", uri: "imds://user-data", reader: Reader{IMDS: fakeIMDS{data: make([]byte, MaxSourceSize+1)}},
			wantMsg: "imds://user-data: ", wantErr: ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.reader
			r.Root = root
			_, err := awstest.Within(t, func() ([]userdata.Document, error) {
				docs, _, err := r.Read(t.Context(), tc.uri)
				return docs, err
			})
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Fatalf("error = %v, want %v saying %q", err, tc.wantErr, tc.wantMsg)
			}
		})
	}
	docs, _, err := Reader{Root: root}.Read(t.Context(), "file:///fits.yaml")
	if err != nil || len(docs) != 1 {
		t.Fatalf("a file of exactly MaxSourceSize: %d documents, %v", len(docs), err)
	}
}

// TestFileSourcesStayInsideSymlinkedRoot: a symlinked directory inside the
// root is resolved inside the root, so the host's files are never read.
func TestFileSourcesStayInsideSymlinkedRoot(t *testing.T) {
	root, host := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(host, "10-host.yaml"), nodeConfigA)
	writeFile(t, filepath.Join(root, host, "10-root.yaml"), nodeConfigB)
	if err := os.MkdirAll(filepath.Join(root, "etc/eks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(host, filepath.Join(root, "etc/eks/nodeadm.d")); err != nil {
		t.Fatal(err)
	}
	for _, uri := range []string{"file:///etc/eks/nodeadm.d/", "file:///etc/eks/nodeadm.d/10-root.yaml"} {
		docs, _, err := Reader{Root: root}.Read(t.Context(), uri)
		if err != nil || len(docs) != 1 || string(docs[0].Data) != nodeConfigB {
			t.Errorf("Read(%s) = %v, %v; want the root's file only", uri, viewSources(docs), err)
		}
	}
	if _, _, err := (Reader{Root: root}).Read(t.Context(), "file:///etc/eks/nodeadm.d/10-host.yaml"); err == nil {
		t.Error("read the host's file through the link")
	}
}
