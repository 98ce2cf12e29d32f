package managerkit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// Names of the health checks New adds, as /healthz and /readyz list them
// (and serve them alone under /healthz/ping and /readyz/informers).
const (
	// livenessCheck, under /healthz, passes while the process serves.
	livenessCheck = "ping"
	// readinessCheck, under /readyz, passes once the started informers
	// synced.
	readinessCheck = "informers"
)

// ErrCacheNotSynced is reported by /readyz until the informers synced.
var ErrCacheNotSynced = errors.New("informer caches not synced")

// cacheSyncWait bounds how long one /readyz request waits for the
// informers.
const cacheSyncWait = time.Second

// New builds a controller-runtime manager for cfg: its client and cache use
// scheme and cacheOpts, it logs through log, and o sets its leader
// election, metrics, health probe and pprof servers. The manager holds its
// leadership in a Lease and releases it when its context is cancelled, so
// a new leader takes over without waiting for the Lease to expire. Its
// /healthz check "ping" passes while it serves; its /readyz check
// "informers" passes once the informers it started synced.
func New(cfg *rest.Config, scheme *runtime.Scheme, log logr.Logger, cacheOpts cache.Options, o Options) (manager.Manager, error) {
	mgr, err := manager.New(cfg, managerOptions(scheme, log, cacheOpts, o))
	if err != nil {
		return nil, fmt.Errorf("create manager: %w", err)
	}
	if err := mgr.AddHealthzCheck(livenessCheck, healthz.Ping); err != nil {
		return nil, fmt.Errorf("add healthz check: %w", err)
	}
	if err := mgr.AddReadyzCheck(readinessCheck, cacheSynced(mgr.GetCache())); err != nil {
		return nil, fmt.Errorf("add readyz check: %w", err)
	}
	return mgr, nil
}

// managerOptions are the controller-runtime options New builds with.
func managerOptions(scheme *runtime.Scheme, log logr.Logger, cacheOpts cache.Options, o Options) manager.Options {
	return manager.Options{
		Scheme:                        scheme,
		Logger:                        log,
		LeaderElection:                o.LeaderElect,
		LeaderElectionResourceLock:    "leases",
		LeaderElectionNamespace:       o.LeaderElectionNamespace,
		LeaderElectionID:              o.LeaderElectionID,
		LeaderElectionReleaseOnCancel: true,
		Metrics:                       metricsserver.Options{BindAddress: o.MetricsBindAddress},
		HealthProbeBindAddress:        o.HealthProbeBindAddress,
		PprofBindAddress:              o.PprofBindAddress,
		Cache:                         cacheOpts,
		Client:                        clientOptions(),
	}
}

// clientOptions are the options of the manager's client: unstructured
// objects are read from the informers too (the rollout controller reads its
// rollouts so, to decode each one itself); controller-runtime otherwise
// sends every such read to the API server.
func clientOptions() client.Options {
	return client.Options{Cache: &client.CacheOptions{Unstructured: true}}
}

// cacheSynced is a check that passes once c has started and the informers
// started on it have synced; until then it fails with ErrCacheNotSynced
// after waiting up to a second.
func cacheSynced(c cache.Cache) healthz.Checker {
	return func(req *http.Request) error {
		ctx, cancel := context.WithTimeout(req.Context(), cacheSyncWait)
		defer cancel()
		if !c.WaitForCacheSync(ctx) {
			return ErrCacheNotSynced
		}
		return nil
	}
}

// WriterClient returns a client that reads as mgr's own client does (from
// its cache, unstructured objects too) and writes through connections of
// its own, built from cfg. client-go hands configs it can compare one
// shared transport, so mgr's watches, its client's writes and the Events
// would otherwise share one HTTP/2 connection to the API server; a burst
// of writes in flight there holds the watches' events back. In the
// approver's join burst, 64 approvals in flight on the watches' connection
// delayed the CSR events by 55 ms to 1.04 s (a burst's median), and by
// under 10 ms with the writes apart (docs/performance.md, "Measured in
// rounds").
func WriterClient(mgr manager.Manager, cfg *rest.Config) (client.Client, error) {
	cfg, hc, err := OwnTransport(cfg)
	if err != nil {
		return nil, fmt.Errorf("writer's HTTP client: %w", err)
	}
	opts := clientOptions()
	opts.Scheme, opts.Mapper, opts.HTTPClient = mgr.GetScheme(), mgr.GetRESTMapper(), hc
	opts.Cache.Reader = mgr.GetCache()
	c, err := client.New(cfg, opts)
	if err != nil {
		return nil, fmt.Errorf("writer client: %w", err)
	}
	return c, nil
}

// OwnTransport returns a copy of cfg whose HTTP client shares no transport
// (and so no connection) with the clients client-go builds from cfg.
// client-go cannot compare a Proxy function, so setting one gives a config
// a transport of its own; http.ProxyFromEnvironment is the one it uses when
// the kubeconfig names none (NO_PROXY's CIDRs still apply).
func OwnTransport(cfg *rest.Config) (*rest.Config, *http.Client, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.Proxy == nil {
		cfg.Proxy = http.ProxyFromEnvironment
	}
	hc, err := rest.HTTPClientFor(cfg)
	return cfg, hc, err
}
