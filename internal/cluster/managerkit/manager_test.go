package managerkit

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

func TestManagerOptions(t *testing.T) {
	scheme := runtime.NewScheme()
	cacheOpts := cache.Options{DefaultTransform: cache.TransformStripManagedFields()}
	tests := []struct {
		name string
		opts Options
	}{
		{name: "leader elected", opts: Options{
			LeaderElect: true, LeaderElectionNamespace: "kube-system", LeaderElectionID: "nodeboot-test",
			MetricsBindAddress: "127.0.0.1:8080", HealthProbeBindAddress: "127.0.0.1:8081",
		}},
		{name: "single replica with pprof", opts: Options{
			LeaderElectionNamespace: "ns", LeaderElectionID: "id",
			MetricsBindAddress: "0", HealthProbeBindAddress: "0", PprofBindAddress: "127.0.0.1:6060",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := managerOptions(scheme, logr.Discard(), cacheOpts, tc.opts)
			o := tc.opts
			if got.Scheme != scheme || got.LeaderElection != o.LeaderElect ||
				got.LeaderElectionNamespace != o.LeaderElectionNamespace || got.LeaderElectionID != o.LeaderElectionID ||
				got.Metrics.BindAddress != o.MetricsBindAddress ||
				got.HealthProbeBindAddress != o.HealthProbeBindAddress || got.PprofBindAddress != o.PprofBindAddress {
				t.Errorf("manager options %+v do not carry %+v", got, o)
			}
			// The Lease is released on shutdown, so that the next
			// replica leads at once.
			if got.LeaderElectionResourceLock != "leases" || !got.LeaderElectionReleaseOnCancel {
				t.Errorf("leader election lock %q, release on cancel %v; want leases, released", got.LeaderElectionResourceLock, got.LeaderElectionReleaseOnCancel)
			}
			if got.Cache.DefaultTransform == nil {
				t.Errorf("cache options not passed on: %+v", got.Cache)
			}
			// Unstructured reads come from the informers too; without it,
			// each of the rollout controller's planning steps was a GET.
			if c := got.Client.Cache; c == nil || !c.Unstructured {
				t.Errorf("client cache options %+v: unstructured objects are read from the API server", c)
			}
		})
	}
}

// TestCacheSyncedWaitsForTheCacheToStart: the readiness check fails until
// the cache has started (its informers then sync as they start).
func TestCacheSyncedWaitsForTheCacheToStart(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	// Nothing is asked of the API server: the cache has no informers.
	c, err := cache.New(&rest.Config{Host: "http://127.0.0.1:9"}, cache.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	check := cacheSynced(c)
	req := httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/readyz", nil)
	if err := check(req); !errors.Is(err, ErrCacheNotSynced) {
		t.Fatalf("check before the cache started = %v, want ErrCacheNotSynced", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	// Each call waits up to cacheSyncWait for the start; a loaded machine
	// may take several.
	eventually(t, "the check passes once the cache started", func() error { return check(req) })
}

// hangBound is how long eventually waits: far above anything the tests
// wait for, it only catches a hang.
const hangBound = 2 * time.Minute

// eventually calls try until it returns nil, and fails the test with what it
// returned last if that takes longer than hangBound.
func eventually(t *testing.T, what string, try func() error) {
	t.Helper()
	deadline := time.Now().Add(hangBound)
	for {
		err := try()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still %v after %s", what, err, hangBound)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
