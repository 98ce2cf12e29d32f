package managerkit

import (
	"net/http"
	"net/url"
	"testing"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
)

func TestOwnTransportSharesNoConnectionWithTheManager(t *testing.T) {
	cases := []struct {
		name string
		cfg  *rest.Config
	}{
		{name: "no proxy in the kubeconfig", cfg: &rest.Config{Host: "https://127.0.0.1:6443", BearerToken: "t"}},
		{name: "a proxy in the kubeconfig", cfg: &rest.Config{Host: "https://127.0.0.1:6443", BearerToken: "t",
			Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: "proxy.example:3128"})}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			shared, err := rest.HTTPClientFor(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			cfg, own, err := OwnTransport(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if innermost(own.Transport) == innermost(shared.Transport) {
				t.Error("the writer's transport is the manager's: their requests would share one connection")
			}
			if cfg.Proxy == nil {
				t.Error("the writer's config lost its proxy")
			}
			if tc.cfg.Proxy == nil {
				// The premise: without a Proxy, client-go hands identical
				// configs one transport.
				again, err := rest.HTTPClientFor(tc.cfg)
				if err != nil {
					t.Fatal(err)
				}
				if innermost(again.Transport) != innermost(shared.Transport) {
					t.Skip("client-go no longer shares transports between identical configs")
				}
			}
		})
	}
}

// innermost is the transport under rt's wrappers (authentication, user
// agent): the one holding the connections.
func innermost(rt http.RoundTripper) http.RoundTripper {
	for {
		w, ok := rt.(utilnet.RoundTripperWrapper)
		if !ok {
			return rt
		}
		rt = w.WrappedRoundTripper()
	}
}
