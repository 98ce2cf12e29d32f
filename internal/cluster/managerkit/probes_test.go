package managerkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// nodesAPI is a local API server that serves the core/v1 discovery and the
// Nodes list and watch, speaking the API's JSON. It holds the Nodes'
// initial state until release is closed, in both ways a client asks for
// it: a list, or a watch with sendInitialEvents=true (watch-list, which
// client-go's informers use by default from v0.35), which it ends as the
// API server does, with a bookmark annotated k8s.io/initial-events-end.
// Every watch then stays open, without events, until the client leaves.
type nodesAPI struct {
	*httptest.Server
	release chan struct{}
}

func newNodesAPI(t *testing.T) *nodesAPI {
	t.Helper()
	api := &nodesAPI{release: make(chan struct{})}
	api.Server = httptest.NewServer(http.HandlerFunc(api.serve))
	t.Cleanup(api.Close)
	return api
}

func (api *nodesAPI) serve(w http.ResponseWriter, r *http.Request) {
	var body any
	switch {
	case r.URL.Path == "/api":
		body = &metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"}}
	case r.URL.Path == "/apis":
		body = &metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
	case r.URL.Path == "/api/v1":
		body = &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: "v1",
			APIResources: []metav1.APIResource{{Name: "nodes", SingularName: "node", Kind: "Node", Verbs: metav1.Verbs{"get", "list", "watch"}}}}
	case r.URL.Path == "/api/v1/nodes" && r.URL.Query().Get("watch") == "true":
		api.watch(w, r)
		return
	case r.URL.Path == "/api/v1/nodes":
		if !api.released(r) {
			return
		}
		body = &corev1.NodeList{TypeMeta: metav1.TypeMeta{Kind: "NodeList", APIVersion: "v1"}, ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body) // fails only when the client went away
}

// released waits until the initial state may be served; false when the
// client left first.
func (api *nodesAPI) released(r *http.Request) bool {
	select {
	case <-api.release:
		return true
	case <-r.Context().Done():
		return false
	}
}

// watch serves a watch of Nodes: for a watch-list request, once released,
// the bookmark that ends the (empty) initial events; then nothing until the
// client leaves.
func (api *nodesAPI) watch(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	if r.URL.Query().Get("sendInitialEvents") == "true" {
		if !api.released(r) {
			return
		}
		end := &corev1.Node{TypeMeta: metav1.TypeMeta{Kind: "Node", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{
			ResourceVersion: "1", Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
		raw, err := json.Marshal(end)
		if err != nil {
			panic(err) // a Node always marshals
		}
		event := metav1.WatchEvent{Type: string(watch.Bookmark), Object: runtime.RawExtension{Raw: raw}}
		if json.NewEncoder(w).Encode(&event) != nil {
			return // the client went away
		}
		w.(http.Flusher).Flush()
	}
	<-r.Context().Done()
}

// newOnFreePort builds a manager whose probes serve on a free loopback
// port and returns it with that address; a port another process took in
// between is tried again.
func newOnFreePort(t *testing.T, cfg *rest.Config, scheme *runtime.Scheme) (manager.Manager, string) {
	t.Helper()
	for attempt := 0; ; attempt++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		mgr, err := New(cfg, scheme, logr.Discard(), cache.Options{}, Options{
			LeaderElectionNamespace: "kube-system", LeaderElectionID: "nodeboot-test",
			MetricsBindAddress: "0", HealthProbeBindAddress: addr,
		})
		if errors.Is(err, syscall.EADDRINUSE) && attempt < 10 {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		return mgr, addr
	}
}

// get returns the status and body of GET http://addr/path.
func get(ctx context.Context, addr, path string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// TestNewServesProbes runs a manager built by New with an informer on
// Nodes: /healthz passes at once, /readyz fails while the API server holds
// the list of Nodes and passes once it answered.
func TestNewServesProbes(t *testing.T) {
	ctrllog.SetLogger(logr.Discard())
	api := newNodesAPI(t)
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	mgr, addr := newOnFreePort(t, &rest.Config{Host: api.URL}, scheme)
	if _, err := mgr.GetCache().GetInformer(t.Context(), &corev1.Node{}, cache.BlockUntilSynced(false)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	expect := func(path string, wantCode int, wantBody string) func() error {
		return func() error {
			code, body, err := get(ctx, addr, path)
			if err != nil {
				return err
			}
			if code != wantCode || !strings.Contains(body, wantBody) {
				return fmt.Errorf("GET %s = %d %q, want %d and %q", path, code, body, wantCode, wantBody)
			}
			return nil
		}
	}
	eventually(t, "alive", expect("/healthz?verbose", http.StatusOK, "[+]ping ok"))
	for path, want := range map[string]string{"/readyz": "[-]informers failed", "/readyz/informers": ErrCacheNotSynced.Error()} {
		if err := expect(path, http.StatusInternalServerError, want)(); err != nil {
			t.Errorf("before the Nodes are listed: %v", err)
		}
	}
	close(api.release)
	eventually(t, "ready", expect("/readyz?verbose", http.StatusOK, "[+]informers ok"))
	if err := expect("/healthz", http.StatusOK, "ok")(); err != nil {
		t.Error(err)
	}
}
