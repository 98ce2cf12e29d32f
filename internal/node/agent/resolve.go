package agent

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// Resolution is a resolved config and how it was obtained.
type Resolution struct {
	// UserSpec is the merged spec as the user wrote it (the cache key).
	UserSpec hub.Spec
	// Config is the effective config: spec with discovered details, status.
	Config hub.NodeConfig
	Input  Input
	// FromCache is true when the cache was used instead of enrichment.
	FromCache bool
	// Changed is true when a cache existed and the config differs from it
	// (drop-ins appeared between the config and run phases).
	Changed bool
}

// Resolve reads, validates and enriches the config. Invalid input fails
// before any AWS API call. With a cache whose user spec equals the new one,
// enrichment is skipped (the second boot phase pays nothing).
// Extra fragments (e.g. from bootstrap.sh arguments) merge after the sources.
func (a *Agent) Resolve(ctx context.Context, sources []string, cachePath string, extra ...Fragment) (Resolution, error) {
	start := time.Now()
	cached, cacheErr := a.loadCache(cachePath)
	if cacheErr != nil {
		a.Log.Warn("ignoring unreadable config cache", "path", cachePath, "error", cacheErr)
	}
	// Without a cache, instance facts are fetched while the sources are
	// read. With one, they are fetched only if the config turns out to
	// have changed: an unchanged run phase makes no lookups at all.
	var f *facts
	if cached == nil {
		f = a.startFacts(ctx)
	}
	in, err := a.Read(ctx, sources)
	if err != nil {
		return Resolution{}, err
	}
	in.Fragments = append(in.Fragments, extra...)
	if !a.Strict {
		in.Problems = diag.Relax(in.Problems)
	}
	a.logWarnings(in.Problems)
	if in.Problems.HasErrors() {
		return Resolution{Input: in}, in.Problems.Err()
	}
	spec, problems, err := in.Merged()
	if errors.Is(err, ErrNoConfig) && cached != nil {
		a.Log.Info("no config in any source; using the cache", "path", cachePath)
		return Resolution{UserSpec: cached.Spec, Config: cached.config(), Input: in, FromCache: true}, nil
	}
	if err != nil {
		return Resolution{Input: in}, fmt.Errorf("%w in %v", err, sources)
	}
	if problems.HasErrors() {
		return Resolution{Input: in}, problems.Err()
	}
	a.logWarnings(in.unappliedWarnings(spec))
	if cached != nil && reflect.DeepEqual(cached.Spec, spec) {
		a.Log.Debug("config unchanged since the cache was written", "path", cachePath)
		return Resolution{UserSpec: spec, Config: cached.config(), Input: in, FromCache: true}, nil
	}
	if err := a.exportEnvironment(spec); err != nil {
		return Resolution{}, err
	}
	if f == nil {
		f = a.startFacts(ctx)
	}
	cfg, err := a.Enrich(ctx, spec, f, in.DescribeWins())
	if err != nil {
		return Resolution{}, fmt.Errorf("discover instance details: %w", err)
	}
	a.Log.Debug("config resolved", "duration", time.Since(start))
	return Resolution{UserSpec: spec, Config: cfg, Input: in, Changed: cached != nil}, nil
}

func (a *Agent) logWarnings(problems diag.List) {
	for _, p := range problems.Filter(diag.SeverityWarning) {
		a.Log.Warn(p.String())
	}
}

// exportEnvironment puts spec.instance.environment.default into the agent's
// own environment so HTTP(S)_PROXY and NO_PROXY apply to its AWS calls.
func (a *Agent) exportEnvironment(spec hub.Spec) error {
	if a.Setenv == nil {
		return nil
	}
	for k, v := range spec.Instance.Environment["default"] {
		if err := a.Setenv(k, v); err != nil {
			return fmt.Errorf("export %s: %w", k, err)
		}
	}
	return nil
}

// cacheEntry is the config cache file, laid out as nodeadm's: the user's
// merged spec at .spec (where nodeadm's tooling reads it: `jq .spec`; it
// also detects changes) and what was discovered at .status, plus the
// effective spec after discovery at .resolvedSpec (nodeboot's own: what
// eks:DescribeCluster filled in).
type cacheEntry struct {
	Spec         hub.Spec   `json:"spec"`
	Status       hub.Status `json:"status"`
	ResolvedSpec hub.Spec   `json:"resolvedSpec"`
}

// newCacheEntry is the cache entry of a resolution.
func newCacheEntry(userSpec hub.Spec, cfg hub.NodeConfig) cacheEntry {
	return cacheEntry{Spec: userSpec, Status: cfg.Status, ResolvedSpec: cfg.Spec}
}

// config is the effective config the entry holds.
func (e cacheEntry) config() hub.NodeConfig {
	return hub.NodeConfig{Spec: e.ResolvedSpec, Status: e.Status}
}
