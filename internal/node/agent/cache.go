package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/inroot"
	"github.com/nodeboot/nodeboot/internal/node/apply"
	"github.com/nodeboot/nodeboot/internal/node/render"
)

// loadCache returns nil, nil when there is no cache.
func (a *Agent) loadCache(path string) (*cacheEntry, error) {
	if path == "" {
		return nil, nil
	}
	b, err := a.readFile(path, maxCacheSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var e cacheEntry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	if e.ResolvedSpec.Cluster.Name == "" {
		// Written by an older nodeboot (userSpec/config) or by nodeadm
		// itself: no effective config to reuse.
		return nil, fmt.Errorf("%s holds no resolvedSpec (written by another version or by nodeadm)", path)
	}
	return &e, nil
}

// maxCacheSize bounds the config cache read back; it holds one config.
const maxCacheSize = 4 << 20

// readFile reads nodePath inside the root, at most limit bytes.
func (a *Agent) readFile(nodePath string, limit int64) ([]byte, error) {
	root, err := inroot.Open(a.Root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.ReadFile(nodePath, limit)
}

// saveCache writes the cache atomically, private to root (it holds the CA
// and possibly a bootstrap token).
func (a *Agent) saveCache(path string, userSpec hub.Spec, cfg hub.NodeConfig) error {
	if path == "" {
		return nil
	}
	b, err := json.MarshalIndent(newCacheEntry(userSpec, cfg), "", "  ")
	if err != nil {
		return err
	}
	_, err = apply.Writer{Root: a.Root}.Apply([]render.File{{Path: path, Mode: 0o600, Data: append(b, '\n')}}, nil)
	return err
}
