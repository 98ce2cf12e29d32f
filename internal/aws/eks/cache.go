package eks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"time"
	"unicode"

	"github.com/nodeboot/nodeboot/internal/inroot"
)

// DefaultCacheDir is where the cluster cache lives on the node, under the
// agent's root directory. It is persistent (/var/lib), not tmpfs (/run): the
// point is that a reboot reuses the answer instead of calling EKS again.
const DefaultCacheDir = "/var/lib/nodeboot"

// Cache errors.
var (
	// ErrNotCached: no usable entry (missing, expired or unreadable).
	ErrNotCached = errors.New("cluster info not cached")
	// ErrInvalidClusterName: the name cannot be an EKS cluster name, so it is
	// never used in a file name.
	ErrInvalidClusterName = errors.New("invalid cluster name")
)

// validClusterName reports whether name has the EKS cluster name syntax:
// 1–100 characters, a letter or digit first, then letters, digits, - and _.
func validClusterName(name string) bool {
	if len(name) == 0 || len(name) > 100 {
		return false
	}
	for i, r := range name {
		alnum := r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r))
		if !alnum && (i == 0 || (r != '-' && r != '_')) {
			return false
		}
	}
	return true
}

// Cache stores DescribeCluster answers as <Dir>/cluster-<name>.json under
// Root (JSON, mode 0600, replaced atomically). Paths resolve inside Root,
// symbolic links included (internal/inroot).
//
// TTL semantics: an entry has no expiry by default (MaxAge 0). It is reused
// on every later boot, so a fleet reboot does not hit the EKS API; it is
// refreshed only when missing (first boot, or after Remove — e.g. when the API
// server rejected the cached CA). A cluster's endpoint and CA are stable for
// its lifetime; CA rotation is not something EKS does in place. Set MaxAge to
// force a refresh of older entries.
type Cache struct {
	// Root is the directory node paths are taken under ("" means "/").
	Root string
	// Dir is the node path of the directory that holds the cache files;
	// "" means DefaultCacheDir.
	Dir string
	// MaxAge, when positive, makes older entries count as not cached.
	MaxAge time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Owner, when set, names the machine the entry belongs to (e.g.
	// "<region>/<instance id>"); an entry saved by another owner — an AMI
	// baked from a node that had joined — is not used.
	Owner string
}

// NewCache returns a cache in DefaultCacheDir under root ("/" on a node).
func NewCache(root string) Cache {
	return Cache{Root: root, Dir: DefaultCacheDir}
}

// maxEntrySize bounds an entry read back (a CA bundle and a few names).
const maxEntrySize = 1 << 20

// cacheEntry is the file format.
type cacheEntry struct {
	SavedAt time.Time   `json:"savedAt"`
	Owner   string      `json:"owner,omitempty"`
	Cluster ClusterInfo `json:"cluster"`
}

// Path returns the node path of the cache file of a cluster.
func (c Cache) Path(name string) (string, error) {
	if !validClusterName(name) {
		return "", fmt.Errorf("%w: %q", ErrInvalidClusterName, name)
	}
	return path.Join(c.dir(), fileName(name)), nil
}

func (c Cache) dir() string {
	if c.Dir == "" {
		return DefaultCacheDir
	}
	return c.Dir
}

func fileName(cluster string) string { return "cluster-" + cluster + ".json" }

// Load returns the cached info of a cluster. A missing, expired or corrupt
// entry yields an error wrapping ErrNotCached.
func (c Cache) Load(name string) (ClusterInfo, error) {
	path, err := c.Path(name)
	if err != nil {
		return ClusterInfo{}, err
	}
	root, err := inroot.Open(c.Root)
	if err != nil {
		return ClusterInfo{}, fmt.Errorf("%w: %w", ErrNotCached, err)
	}
	defer root.Close()
	data, err := root.ReadFile(path, maxEntrySize)
	if err != nil { // the error names the path; fs.ErrNotExist stays testable
		return ClusterInfo{}, fmt.Errorf("%w: %w", ErrNotCached, err)
	}
	var e cacheEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return ClusterInfo{}, fmt.Errorf("%s: corrupt: %w: %w", path, ErrNotCached, err)
	}
	if e.Cluster.Name != name || e.Cluster.Endpoint == "" || len(e.Cluster.CA) == 0 {
		return ClusterInfo{}, fmt.Errorf("%s: incomplete entry: %w", path, ErrNotCached)
	}
	if c.Owner != "" && e.Owner != c.Owner {
		return ClusterInfo{}, fmt.Errorf("%s: saved by %q, not %q: %w", path, e.Owner, c.Owner, ErrNotCached)
	}
	if c.MaxAge > 0 && c.now().Sub(e.SavedAt) > c.MaxAge {
		return ClusterInfo{}, fmt.Errorf("%s: saved %s, older than %s: %w", path, e.SavedAt.Format(time.RFC3339), c.MaxAge, ErrNotCached)
	}
	return e.Cluster, nil
}

// Save writes the info of a cluster atomically (temporary file, fsync,
// rename), creating Dir (0700) if needed.
func (c Cache) Save(name string, info ClusterInfo) error {
	if _, err := c.Path(name); err != nil {
		return err
	}
	info.Name = name
	data, err := json.MarshalIndent(cacheEntry{SavedAt: c.now().UTC(), Owner: c.Owner, Cluster: info}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode cluster cache: %w", err)
	}
	root, err := inroot.Open(c.Root)
	if err != nil {
		return fmt.Errorf("cluster cache: %w", err)
	}
	defer root.Close()
	dir, err := root.MkdirAll(c.dir(), 0o700)
	if err != nil {
		return fmt.Errorf("cluster cache: %w", err)
	}
	defer dir.Close()
	if err := dir.WriteFile(fileName(name), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("cluster cache: %w", err)
	}
	return nil
}

// Remove deletes the entry of a cluster; a missing entry is not an error.
func (c Cache) Remove(name string) error {
	if _, err := c.Path(name); err != nil {
		return err
	}
	root, err := inroot.Open(c.Root)
	if err != nil {
		return fmt.Errorf("cluster cache: %w", err)
	}
	defer root.Close()
	dir, err := root.Dir(c.dir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cluster cache: %w", err)
	}
	defer dir.Close()
	if err := dir.Remove(fileName(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cluster cache: %w", err)
	}
	return nil
}

func (c Cache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Describer is what Discover needs from a Client.
type Describer interface {
	DescribeCluster(ctx context.Context, name string) (ClusterInfo, error)
}

// Discover returns the cluster's info from cache when present, otherwise
// from d, saving the answer. fromCache reports which. A failure to save is
// logged (a warning) and not returned: the node can still join.
func Discover(ctx context.Context, log *slog.Logger, d Describer, cache Cache, name string) (info ClusterInfo, fromCache bool, err error) {
	info, err = cache.Load(name)
	if err == nil {
		return info, true, nil
	}
	if errors.Is(err, ErrInvalidClusterName) {
		return ClusterInfo{}, false, err
	}
	if log != nil && !errors.Is(err, fs.ErrNotExist) {
		log.Debug("cluster cache not used", "cluster", name, "reason", err.Error())
	}
	info, err = d.DescribeCluster(ctx, name)
	if err != nil {
		return ClusterInfo{}, false, err
	}
	if err := cache.Save(name, info); err != nil && log != nil {
		log.Warn("cannot cache cluster info", "cluster", name, "error", err.Error())
	}
	return info, false, nil
}
