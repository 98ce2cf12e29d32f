package imds

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// NetworkInterface is what IMDS says about one attached network interface.
type NetworkInterface struct {
	// DeviceNumber is the attachment's device index (0 for the primary).
	DeviceNumber int
	// NetworkCard is the network card index; 0 on instance types with one
	// card, where IMDS has no network-card entry.
	NetworkCard int
	// LocalIPv4s are the interface's private IPv4 addresses, primary first;
	// none on an IPv6-only interface.
	LocalIPv4s []string
}

// Interface reads device-number, network-card and local-ipv4s of the
// interface with the given MAC, in parallel. A missing device-number is an
// error wrapping ErrNotFound (IMDS may not know a just-attached interface
// yet; the caller retries).
func (c *Client) Interface(ctx context.Context, mac string) (NetworkInterface, error) {
	var (
		wg                 sync.WaitGroup
		device, card, ipv4 string
		errs               [3]error
	)
	wg.Go(func() { device, errs[0] = c.metadata(ctx, macPath(mac, "device-number")) })
	wg.Go(func() { card, errs[1] = c.metadata(ctx, macPath(mac, "network-card")) })
	wg.Go(func() { ipv4, errs[2] = c.metadata(ctx, macPath(mac, "local-ipv4s")) })
	wg.Wait()
	for i := 1; i < len(errs); i++ {
		if errors.Is(errs[i], ErrNotFound) {
			errs[i] = nil
		}
	}
	if err := errors.Join(errs[:]...); err != nil {
		return NetworkInterface{}, err
	}
	var ni NetworkInterface
	var err error
	if ni.DeviceNumber, err = atoi("device-number", device); err != nil {
		return NetworkInterface{}, err
	}
	if card != "" {
		if ni.NetworkCard, err = atoi("network-card", card); err != nil {
			return NetworkInterface{}, err
		}
	}
	ni.LocalIPv4s = splitLines(ipv4)
	return ni, nil
}

func atoi(what, s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("imds %s %q: not a number", what, s)
	}
	return n, nil
}
