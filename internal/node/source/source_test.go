package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// fakeIMDS returns fixed user data or an error.
type fakeIMDS struct {
	data []byte
	err  error
}

func (f fakeIMDS) UserData(context.Context) ([]byte, error) { return f.data, f.err }

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sourceView is what the reader tests compare of a userdata.Document.
type sourceView struct {
	URI    string
	Part   int
	Format userdata.Format
}

func viewSources(docs []userdata.Document) []sourceView {
	var out []sourceView
	for _, d := range docs {
		out = append(out, sourceView{URI: d.Source.URI, Part: d.Source.Part, Format: d.Format})
	}
	return out
}

func newTestRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	dropins := filepath.Join(root, "etc/eks/nodeadm.d")
	writeFile(t, filepath.Join(dropins, "20-b.yml"), nodeConfigB)
	writeFile(t, filepath.Join(dropins, "10-a.yaml"), nodeConfigA)
	writeFile(t, filepath.Join(dropins, "30-C.JSON"), `{"kind":"NodeConfig"}`)
	writeFile(t, filepath.Join(dropins, "40-bad.yaml"), "MIME-Version: 1.0\nContent-Type: multipart/mixed\n\n")
	writeFile(t, filepath.Join(dropins, "notes.txt"), "not config")
	writeFile(t, filepath.Join(dropins, "sub.yaml/x.yaml"), nodeConfigA)
	if err := os.Symlink("10-a.yaml", filepath.Join(dropins, "50-link.yaml")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "etc/eks/user-data.mime"), threePartMIME)
	if err := os.MkdirAll(filepath.Join(root, "etc/empty.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "etc/empty.d/README"), "x")
	return root
}

func TestReaderFiles(t *testing.T) {
	root := newTestRoot(t)
	tests := []struct {
		name      string
		uri       string
		want      []sourceView
		wantProbs []string // rendered problems
	}{
		{
			name: "drop-in directory",
			uri:  "file:///etc/eks/nodeadm.d",
			want: []sourceView{
				{URI: "file:///etc/eks/nodeadm.d/10-a.yaml", Format: userdata.FormatNodeConfig},
				{URI: "file:///etc/eks/nodeadm.d/20-b.yml", Format: userdata.FormatNodeConfig},
				{URI: "file:///etc/eks/nodeadm.d/30-C.JSON", Format: userdata.FormatNodeConfig},
			},
			wantProbs: []string{`error: file:///etc/eks/nodeadm.d/40-bad.yaml line 2: Content-Type multipart/mixed at line 2 has no boundary= parameter; add one, e.g. boundary="//"`},
		},
		{
			name: "MIME file",
			uri:  "file:///etc/eks/user-data.mime",
			want: []sourceView{
				{URI: "file:///etc/eks/user-data.mime", Part: 1, Format: userdata.FormatNodeConfig},
				{URI: "file:///etc/eks/user-data.mime", Part: 2, Format: userdata.FormatNodeConfig},
				{URI: "file:///etc/eks/user-data.mime", Part: 3, Format: userdata.FormatShell},
			},
		},
		{name: "single file", uri: "file:///etc/eks/nodeadm.d/10-a.yaml", want: []sourceView{{URI: "file:///etc/eks/nodeadm.d/10-a.yaml", Format: userdata.FormatNodeConfig}}},
		{name: "directory without config files", uri: "file:///etc/empty.d/"},
		{name: "missing drop-in directory named with a trailing slash", uri: "file:///etc/eks/missing.d/"},
		{name: "missing parent of a directory named with a trailing slash", uri: "file:///opt/none/nodeadm.d/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs, probs, err := Reader{Root: root}.Read(t.Context(), tc.uri)
			if err != nil {
				t.Fatal(err)
			}
			if got := viewSources(docs); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("documents:\n got %+v\nwant %+v", got, tc.want)
			}
			var gotProbs []string
			for _, p := range probs {
				gotProbs = append(gotProbs, p.String())
			}
			if !reflect.DeepEqual(gotProbs, tc.wantProbs) {
				t.Errorf("problems:\n got %q\nwant %q", gotProbs, tc.wantProbs)
			}
		})
	}
}

func TestReaderFileErrors(t *testing.T) {
	root := newTestRoot(t)
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.yaml"), nodeConfigA)
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		uri     string
		wantErr error
	}{
		{name: "missing file", uri: "file:///etc/eks/missing.yaml", wantErr: fs.ErrNotExist},
		{name: "missing directory without a trailing slash", uri: "file:///etc/eks/missing.d", wantErr: fs.ErrNotExist},
		{name: "trailing slash below a regular file", uri: "file:///etc/eks/user-data.mime/nodeadm.d/", wantErr: syscall.ENOTDIR},
		{name: "escape with dot-dot", uri: "file:///../../" + filepath.ToSlash(outside) + "/secret.yaml", wantErr: userdata.ErrInvalidURI},
		{name: "absolute path stays under the root", uri: "file://" + filepath.ToSlash(outside) + "/secret.yaml", wantErr: fs.ErrNotExist},
		{name: "unsupported scheme", uri: "https://example.com/x.yaml", wantErr: userdata.ErrUnsupportedScheme},
		{name: "canceled context", ctx: canceled, uri: "file:///etc/eks/nodeadm.d", wantErr: context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil {
				ctx = t.Context()
			}
			docs, probs, err := Reader{Root: root}.Read(ctx, tc.uri)
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("err = %v, want %v", err, tc.wantErr)
			}
			if docs != nil || probs != nil {
				t.Errorf("got %d documents and %v with an error", len(docs), probs)
			}
		})
	}
}

func TestReaderDefaultRoot(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.yaml"), nodeConfigA)
	uri := "file://" + filepath.ToSlash(dir) + "/a.yaml"
	docs, probs, err := Reader{}.Read(t.Context(), uri)
	if err != nil || len(probs) != 0 || len(docs) != 1 || string(docs[0].Data) != nodeConfigA || docs[0].Source.URI != uri {
		t.Errorf("Read(%s) = %v, %v, %v", uri, viewSources(docs), probs, err)
	}
}

func TestReaderIMDS(t *testing.T) {
	errThrottled := errors.New("throttled")
	tests := []struct {
		name    string
		imds    UserDataFetcher
		want    []sourceView
		wantErr error
	}{
		{
			name: "MIME user data",
			imds: fakeIMDS{data: []byte(b64(eksMNG))},
			want: []sourceView{{URI: "imds://user-data", Part: 1, Format: userdata.FormatShell}},
		},
		{name: "no user data", imds: fakeIMDS{err: fmt.Errorf("GET user-data: 404: %w", ErrNoUserData)}},
		{name: "empty user data", imds: fakeIMDS{data: []byte{}}},
		{name: "fetch error", imds: fakeIMDS{err: errThrottled}, wantErr: errThrottled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs, probs, err := Reader{IMDS: tc.imds}.Read(t.Context(), "imds://user-data")
			if !errors.Is(err, tc.wantErr) || (err != nil) != (tc.wantErr != nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if len(probs) != 0 {
				t.Errorf("problems: %v", probs)
			}
			if got := viewSources(docs); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("documents:\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestReaderWithoutIMDS(t *testing.T) {
	if _, _, err := (Reader{}).Read(t.Context(), "imds://user-data"); err == nil {
		t.Error("want an error without an IMDS client")
	}
}
