package eks

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

var sampleInfo = ClusterInfo{Name: "prod", Endpoint: "https://x.eks.amazonaws.com", CA: testCA,
	ServiceIPv4CIDR: "10.100.0.0/16", IPFamily: "ipv4", Status: "ACTIVE", Version: "1.34"}

func TestNewCacheIsUnderRoot(t *testing.T) {
	root := t.TempDir()
	c := NewCache(root)
	path, err := c.Path("prod")
	if err != nil {
		t.Fatal(err)
	}
	if want := "/var/lib/nodeboot/cluster-prod.json"; path != want {
		t.Errorf("Path = %q, want %q", path, want)
	}
	if err := c.Save("prod", sampleInfo); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, path)); err != nil {
		t.Errorf("not saved under the root: %v", err)
	}
}

// onHost returns the host path of a node path of c (no links involved).
func onHost(c Cache, nodePath string) string { return filepath.Join(c.Root, nodePath) }

func TestCacheAcceptsEKSNames(t *testing.T) {
	c := NewCache(t.TempDir())
	for _, name := range []string{"prod", "a", "My-Cluster_01", "9lives", strings.Repeat("b", 100)} {
		t.Run(name, func(t *testing.T) {
			if err := c.Save(name, sampleInfo); err != nil {
				t.Fatalf("Save(%q) = %v", name, err)
			}
			if got, err := c.Load(name); err != nil || got.Name != name {
				t.Errorf("Load(%q) = %+v, %v", name, got, err)
			}
		})
	}
}

func TestCacheRoundTrip(t *testing.T) {
	c := NewCache(t.TempDir())
	if _, err := c.Load("prod"); !errors.Is(err, ErrNotCached) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Load before Save = %v, want ErrNotCached wrapping fs.ErrNotExist", err)
	}
	if err := c.Save("prod", sampleInfo); err != nil {
		t.Fatal(err)
	}
	got, err := c.Load("prod")
	if err != nil {
		t.Fatal(err)
	}
	if !equalInfo(got, sampleInfo) {
		t.Errorf("Load = %+v, want %+v", got, sampleInfo)
	}
	path, _ := c.Path("prod")
	st, err := os.Stat(onHost(c, path))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", st.Mode().Perm())
	}
	entries, err := os.ReadDir(onHost(c, c.Dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "cluster-prod.json" {
		t.Errorf("cache dir holds %v, want only cluster-prod.json (no temporary files)", entries)
	}
	if err := c.Remove("prod"); err != nil {
		t.Fatal(err)
	}
	if err := c.Remove("prod"); err != nil {
		t.Errorf("second Remove = %v, want nil", err)
	}
	if _, err := c.Load("prod"); !errors.Is(err, ErrNotCached) {
		t.Errorf("Load after Remove = %v, want ErrNotCached", err)
	}
}

func TestCacheRejectsBadNames(t *testing.T) {
	c := NewCache(t.TempDir())
	for _, name := range []string{"", "../etc/passwd", "a/b", "-lead", "_lead", "has space", "naïve", strings.Repeat("a", 101)} {
		t.Run(name, func(t *testing.T) {
			if err := c.Save(name, sampleInfo); !errors.Is(err, ErrInvalidClusterName) {
				t.Errorf("Save(%q) = %v, want ErrInvalidClusterName", name, err)
			}
			if _, err := c.Load(name); !errors.Is(err, ErrInvalidClusterName) {
				t.Errorf("Load(%q) = %v, want ErrInvalidClusterName", name, err)
			}
		})
	}
}

func TestCacheLoadUnusableEntries(t *testing.T) {
	tests := []struct {
		name    string
		content string
	}{
		{name: "corrupt json", content: "{not json"},
		{name: "other cluster's entry", content: `{"savedAt":"2026-01-01T00:00:00Z","cluster":{"name":"other","endpoint":"https://e","certificateAuthority":"Y2E="}}`},
		{name: "no CA", content: `{"savedAt":"2026-01-01T00:00:00Z","cluster":{"name":"prod","endpoint":"https://e"}}`},
		{name: "no endpoint", content: `{"savedAt":"2026-01-01T00:00:00Z","cluster":{"name":"prod","certificateAuthority":"Y2E="}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCache(t.TempDir())
			if err := os.MkdirAll(onHost(c, c.Dir), 0o700); err != nil {
				t.Fatal(err)
			}
			path, _ := c.Path("prod")
			if err := os.WriteFile(onHost(c, path), []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Load("prod"); !errors.Is(err, ErrNotCached) {
				t.Errorf("Load = %v, want ErrNotCached", err)
			}
		})
	}
}

func TestCacheMaxAge(t *testing.T) {
	saved := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		maxAge  time.Duration
		age     time.Duration
		wantHit bool
	}{
		{name: "no expiry reuses a year-old entry", maxAge: 0, age: 365 * 24 * time.Hour, wantHit: true},
		{name: "younger than max age", maxAge: 24 * time.Hour, age: time.Hour, wantHit: true},
		{name: "older than max age", maxAge: 24 * time.Hour, age: 25 * time.Hour, wantHit: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			now := saved
			c := NewCache(t.TempDir())
			c.MaxAge = tc.maxAge
			c.Now = func() time.Time { return now }
			if err := c.Save("prod", sampleInfo); err != nil {
				t.Fatal(err)
			}
			now = saved.Add(tc.age)
			_, err := c.Load("prod")
			if hit := err == nil; hit != tc.wantHit {
				t.Errorf("hit = %v (err %v), want %v", hit, err, tc.wantHit)
			}
		})
	}
}

func TestDiscoverUsesCacheBeforeAPI(t *testing.T) {
	c, stub := newTestClient(t, 3)
	stub.AddCluster(prodCluster)
	cache := NewCache(t.TempDir())

	first, fromCache, err := Discover(t.Context(), nil, c, cache, "prod")
	if err != nil || fromCache {
		t.Fatalf("first Discover = cached %v, err %v; want an API call", fromCache, err)
	}
	second, fromCache, err := Discover(t.Context(), nil, c, cache, "prod")
	if err != nil || !fromCache {
		t.Fatalf("second Discover = cached %v, err %v; want the cache", fromCache, err)
	}
	if !equalInfo(first, second) || first.Endpoint != prodCluster.Endpoint {
		t.Errorf("cached %+v differs from fetched %+v", second, first)
	}
	if n := stub.Calls(awstest.ActionDescribeCluster); n != 1 {
		t.Errorf("DescribeCluster calls = %d, want 1 (a reboot must not call EKS again)", n)
	}
}

type failingDescriber struct{ err error }

func (f failingDescriber) DescribeCluster(context.Context, string) (ClusterInfo, error) {
	return ClusterInfo{}, f.err
}

func TestDiscoverErrors(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		cluster string
		want    error
	}{
		{name: "API error passes through", cluster: "prod", want: boom},
		{name: "bad name never reaches the API", cluster: "../x", want: ErrInvalidClusterName},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Discover(t.Context(), nil, failingDescriber{err: boom}, NewCache(t.TempDir()), tc.cluster)
			if !errors.Is(err, tc.want) {
				t.Errorf("error = %v, want %v", err, tc.want)
			}
		})
	}
}

func FuzzCacheLoad(f *testing.F) {
	f.Add([]byte(`{"savedAt":"2026-01-01T00:00:00Z","cluster":{"name":"prod","endpoint":"https://e","certificateAuthority":"Y2E="}}`))
	f.Add([]byte(`{"cluster":{"name":"prod"}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := NewCache(t.TempDir())
		if err := os.MkdirAll(onHost(c, c.Dir), 0o700); err != nil {
			t.Fatal(err)
		}
		path, _ := c.Path("prod")
		if err := os.WriteFile(onHost(c, path), data, 0o600); err != nil {
			t.Fatal(err)
		}
		info, err := c.Load("prod")
		if err != nil {
			if !errors.Is(err, ErrNotCached) {
				t.Fatalf("Load error %v does not wrap ErrNotCached", err)
			}
			return
		}
		if info.Name != "prod" || info.Endpoint == "" || len(info.CA) == 0 {
			t.Fatalf("Load accepted an incomplete entry: %+v", info)
		}
	})
}

func TestCacheOwner(t *testing.T) {
	tests := []struct {
		name            string
		savedBy, readBy string
		wantHit         bool
	}{
		{name: "same instance", savedBy: "us-west-2/i-1", readBy: "us-west-2/i-1", wantHit: true},
		{name: "AMI baked from another instance", savedBy: "us-west-2/i-1", readBy: "us-west-2/i-2", wantHit: false},
		{name: "other region", savedBy: "us-west-2/i-1", readBy: "eu-west-1/i-1", wantHit: false},
		{name: "owner not checked", savedBy: "us-west-2/i-1", readBy: "", wantHit: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			w := NewCache(dir)
			w.Owner = tc.savedBy
			if err := w.Save("prod", sampleInfo); err != nil {
				t.Fatal(err)
			}
			r := NewCache(dir)
			r.Owner = tc.readBy
			_, err := r.Load("prod")
			if hit := err == nil; hit != tc.wantHit {
				t.Errorf("hit = %v (err %v), want %v", hit, err, tc.wantHit)
			}
			if err != nil && !errors.Is(err, ErrNotCached) {
				t.Errorf("err = %v, want ErrNotCached", err)
			}
		})
	}
}

// TestCacheStaysInsideSymlinkedRoot: a symlinked directory inside the root
// is resolved inside the root for the cache's writes and reads.
func TestCacheStaysInsideSymlinkedRoot(t *testing.T) {
	root, host := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "var"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, host), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(host, filepath.Join(root, "var/lib")); err != nil {
		t.Fatal(err)
	}
	c := NewCache(root)
	if err := c.Save("prod", sampleInfo); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(host); len(entries) != 0 {
		t.Errorf("the cache wrote on the host: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(root, host, "nodeboot/cluster-prod.json")); err != nil {
		t.Errorf("the cache is not inside the root: %v", err)
	}
	if got, err := c.Load("prod"); err != nil || got.Endpoint != sampleInfo.Endpoint {
		t.Errorf("Load = %+v, %v", got, err)
	}
}
