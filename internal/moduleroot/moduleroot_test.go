package moduleroot

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestFind(t *testing.T) {
	tests := []struct {
		name    string
		dir     func(t *testing.T) string
		want    string
		wantErr error
	}{
		{name: "from a package directory", dir: func(*testing.T) string { return "." }, want: "../.."},
		{name: "from a tools module inside the tree", dir: func(*testing.T) string { return "../../test/tools/k8s" }, want: "../.."},
		{name: "outside the module", dir: func(t *testing.T) string { return t.TempDir() }, wantErr: ErrNotInModule},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := filepath.Abs(tc.dir(t))
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if tc.want != "" {
				want, _ = filepath.Abs(tc.want)
			}
			t.Chdir(dir)
			got, err := Find()
			if !errors.Is(err, tc.wantErr) || got != want {
				t.Errorf("Find() from %s = %q, %v; want %q, %v", dir, got, err, want, tc.wantErr)
			}
			if err == nil {
				if _, err := os.Stat(filepath.Join(got, "go.mod")); err != nil {
					t.Error(err)
				}
			}
		})
	}
}
