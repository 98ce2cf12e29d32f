package doctor

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// DNSLookup is one name looked up, once: the address dialled next is the
// one found here, never looked up again.
type DNSLookup struct {
	Name  string
	Addrs []string
	Err   error
	Took  time.Duration
}

// ResolverConf is what the node's /etc/resolv.conf says about lookups.
type ResolverConf struct {
	Nameservers []string
	// Timeout and Attempts are glibc's per-server timeout and rounds
	// (options timeout:N attempts:N; 5 s and 2 by default).
	Timeout  time.Duration
	Attempts int
	Err      error
}

// glibc's resolver defaults (resolv.conf(5)).
const (
	resolvDefaultTimeout  = 5 * time.Second
	resolvDefaultAttempts = 2
)

// readResolvConf reads the node's /etc/resolv.conf.
func readResolvConf(f Files) ResolverConf {
	rc := ResolverConf{Timeout: resolvDefaultTimeout, Attempts: resolvDefaultAttempts}
	data, err := f.Read("/etc/resolv.conf")
	if err != nil {
		rc.Err = err
		return rc
	}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) >= 2 && fields[0] == "nameserver":
			rc.Nameservers = append(rc.Nameservers, fields[1])
		case len(fields) >= 2 && fields[0] == "options":
			rc.options(fields[1:])
		}
	}
	return rc
}

func (rc *ResolverConf) options(opts []string) {
	for _, o := range opts {
		k, v, _ := strings.Cut(o, ":")
		n, err := strconv.Atoi(v)
		switch {
		case err != nil:
		case k == "timeout":
			rc.Timeout = time.Duration(n) * time.Second
		case k == "attempts":
			rc.Attempts = n
		}
	}
}

// Wait is how long a lookup may wait for servers that never answer:
// every server, every attempt, each for the timeout.
func (rc ResolverConf) Wait() time.Duration {
	return rc.Timeout * time.Duration(max(rc.Attempts, 1)*max(len(rc.Nameservers), 1))
}

// String names the servers and their bounds.
func (rc ResolverConf) String() string {
	servers := strings.Join(rc.Nameservers, ", ")
	if servers == "" {
		servers = "no nameserver line (the resolver tries 127.0.0.1)"
	}
	return fmt.Sprintf("/etc/resolv.conf: %s; timeout %s, %d attempt(s)", servers, rc.Timeout, rc.Attempts)
}

// lookupOnce resolves name once, within bound.
func (n Network) lookupOnce(ctx context.Context, name string, bound time.Duration) DNSLookup {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	start := time.Now()
	addrs, err := n.lookup(ctx, name)
	return DNSLookup{Name: name, Addrs: addrs, Err: err, Took: time.Since(start)}
}

// NotFound reports whether the name does not exist (NXDOMAIN), as
// opposed to no answer.
func (l DNSLookup) NotFound() bool {
	var dnsErr *net.DNSError
	return errors.As(l.Err, &dnsErr) && dnsErr.IsNotFound
}

// TimedOut reports whether the resolver did not answer in time.
func (l DNSLookup) TimedOut() bool {
	var dnsErr *net.DNSError
	return errors.Is(l.Err, context.DeadlineExceeded) || errors.As(l.Err, &dnsErr) && dnsErr.IsTimeout
}
