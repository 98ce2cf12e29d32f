package agent

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"time"

	"github.com/nodeboot/nodeboot/internal/config/hub"
)

// Outposts pinning: how often and how far apart the API server host is
// resolved (nodeadm parity: 6 tries, 200 ms apart), each try ending within
// pinLookupTimeout: at most 6 × 5 s + 5 × 0.2 s = 31 s in all.
const (
	pinAttempts      = 6
	pinInterval      = 200 * time.Millisecond
	pinLookupTimeout = 5 * time.Second
)

// pinAPIServer resolves the API server host of an Outposts cluster so its
// addresses can be pinned in /etc/hosts. Literal IPs need no pinning.
func (a *Agent) pinAPIServer(ctx context.Context, cfg *hub.NodeConfig) error {
	c := cfg.Spec.Cluster
	if c.EnableOutpost == nil || !*c.EnableOutpost {
		return nil
	}
	host, err := apiServerHost(c.APIServerEndpoint)
	if err != nil || host == "" {
		return err
	}
	lookup := a.LookupHost
	if lookup == nil {
		lookup = net.DefaultResolver.LookupHost
	}
	perTry := a.pinLookupTimeout
	if perTry <= 0 {
		perTry = pinLookupTimeout
	}
	var lastErr error
	for i := range pinAttempts {
		tryCtx, cancel := context.WithTimeout(ctx, perTry)
		ips, err := lookup(tryCtx, host)
		cancel()
		if err == nil && len(ips) > 0 {
			slices.Sort(ips)
			cfg.Status.APIServerIPs = slices.Compact(ips)
			return nil
		}
		lastErr = err
		if i < pinAttempts-1 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(pinInterval):
			}
		}
	}
	return fmt.Errorf("resolve the Outposts API server %s to pin it in /etc/hosts: %w", host, lastErr)
}

// apiServerHost returns the endpoint's host name, or "" for an IP literal.
func apiServerHost(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", fmt.Errorf("API server endpoint: %w", err)
	}
	if _, err := netip.ParseAddr(u.Hostname()); err == nil {
		return "", nil
	}
	return u.Hostname(), nil
}
