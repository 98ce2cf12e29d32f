package merge

import (
	"errors"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

func TestTOML(t *testing.T) {
	tests := []struct {
		name    string
		base    string
		overlay string
		want    string
	}{
		{
			name:    "empty overlay returns base verbatim",
			base:    "# comment\nversion = 2\n[grpc]\naddress = \"/a\"\n",
			overlay: "",
			want:    "# comment\nversion = 2\n[grpc]\naddress = \"/a\"\n",
		},
		{
			name:    "comment-only overlay returns base verbatim",
			base:    "version = 2\n",
			overlay: "# nothing here\n\n",
			want:    "version = 2\n",
		},
		{
			name:    "empty base returns overlay verbatim",
			base:    "  \n",
			overlay: "[a]\nb = \"c\" # note\n",
			want:    "[a]\nb = \"c\" # note\n",
		},
		{
			name:    "nested tables merged key by key, overlay wins",
			base:    "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\nBinaryName = \"/usr/sbin/runc\"\nSystemdCgroup = true\n",
			overlay: "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\nSystemdCgroup = false\n",
			want: "[plugins]\n" +
				"[plugins.'io.containerd.grpc.v1.cri']\n" +
				"[plugins.'io.containerd.grpc.v1.cri'.containerd]\n" +
				"[plugins.'io.containerd.grpc.v1.cri'.containerd.runtimes]\n" +
				"[plugins.'io.containerd.grpc.v1.cri'.containerd.runtimes.runc]\n" +
				"[plugins.'io.containerd.grpc.v1.cri'.containerd.runtimes.runc.options]\n" +
				"BinaryName = '/usr/sbin/runc'\n" +
				"SystemdCgroup = false\n",
		},
		{
			name:    "arrays are replaced, not appended",
			base:    "[cni]\nbin_dirs = [\"/opt/cni/bin\", \"/x\"]\n",
			overlay: "[cni]\nbin_dirs = [\"/usr/lib/cni\"]\n",
			want:    "[cni]\nbin_dirs = ['/usr/lib/cni']\n",
		},
		{
			name:    "arrays of tables are replaced",
			base:    "[[hook]]\nname = \"a\"\n[[hook]]\nname = \"b\"\n",
			overlay: "[[hook]]\nname = \"c\"\n",
			want:    "[[hook]]\nname = 'c'\n",
		},
		{
			name:    "scalar replaced by table and table by scalar",
			base:    "a = 1\n[b]\nc = 2\n",
			overlay: "b = \"flat\"\n[a]\nd = 3\n",
			want:    "b = 'flat'\n\n[a]\nd = 3\n",
		},
		{
			name:    "overlay adds new top-level keys and tables",
			base:    "version = 2\nroot = \"/var/lib/containerd\"\n",
			overlay: "state = \"/run/x\"\n[proxy_plugins.soci]\ntype = \"snapshot\"\n",
			want:    "root = '/var/lib/containerd'\nstate = '/run/x'\nversion = 2\n\n[proxy_plugins]\n[proxy_plugins.soci]\ntype = 'snapshot'\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TOML([]byte(tc.base), []byte(tc.overlay))
			if err != nil {
				t.Fatalf("TOML: %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("TOML mismatch\n got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestTOMLErrors(t *testing.T) {
	tests := []struct {
		name    string
		base    string
		overlay string
		wantMsg string
	}{
		{name: "bad base", base: "[a\n", overlay: "b = 1\n", wantMsg: "base document: invalid TOML: line 1, column 3"},
		{name: "bad overlay", base: "b = 1\n", overlay: "x = = 2\n", wantMsg: "overlay document: invalid TOML: line 1, column 5"},
		{name: "bad overlay over empty base", base: "", overlay: "x = \"open\n", wantMsg: "overlay document: invalid TOML: line 1"},
		{name: "duplicate key", base: "", overlay: "a = 1\na = 2\n", wantMsg: "overlay document: invalid TOML: line 2, column 1: toml: key a is already defined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TOML([]byte(tc.base), []byte(tc.overlay))
			if !errors.Is(err, ErrInvalidTOML) {
				t.Fatalf("error %v does not wrap ErrInvalidTOML", err)
			}
			if !strings.HasPrefix(err.Error(), tc.wantMsg) {
				t.Errorf("error %q, want prefix %q", err, tc.wantMsg)
			}
		})
	}
}

func TestTOMLDoesNotAliasInputs(t *testing.T) {
	base := []byte("a = 1\n")
	got, err := TOML(base, nil)
	if err != nil {
		t.Fatalf("TOML: %v", err)
	}
	base[0] = 'z'
	if string(got) != "a = 1\n" {
		t.Errorf("result changed with its input: %q", got)
	}
}

// FuzzTOML checks that the merge never panics and that a successful merge
// is valid TOML containing every top-level key of both sides.
func FuzzTOML(f *testing.F) {
	f.Add([]byte("version = 2\n[grpc]\naddress = '/a'\n"), []byte("[grpc]\nuid = 0\n"))
	f.Add([]byte("[[a]]\nb = 1\n"), []byte("a = []\n"))
	f.Add([]byte(""), []byte("x = 1979-05-27T07:32:00Z\n"))
	f.Fuzz(func(t *testing.T, base, overlay []byte) {
		merged, err := TOML(base, overlay)
		if err != nil {
			if !errors.Is(err, ErrInvalidTOML) && !strings.HasPrefix(err.Error(), "serialise merged TOML") {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		var mergedTable map[string]any
		if err := toml.Unmarshal(merged, &mergedTable); err != nil {
			t.Fatalf("merged output does not parse: %v\n%s", err, merged)
		}
		for _, side := range [][]byte{base, overlay} {
			var table map[string]any
			if toml.Unmarshal(side, &table) != nil {
				t.Fatalf("an input that merged does not parse")
			}
			for key := range table {
				if _, ok := mergedTable[key]; !ok {
					t.Fatalf("key %q lost in merge", key)
				}
			}
		}
	})
}
