package netmanager

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/nodeboot/nodeboot/internal/aws/imds"
	"github.com/nodeboot/nodeboot/internal/node/apply"
	"github.com/nodeboot/nodeboot/internal/node/render"
)

// Boot-hook polling, as nodeadm's: links settle within seconds; the bound
// only keeps a broken network from holding the boot forever.
const (
	DefaultPoll    = 50 * time.Millisecond
	DefaultTimeout = time.Minute
)

// ErrNotReady is returned when the boot hook's bound passes first.
var ErrNotReady = errors.New("network links did not settle")

// Metadata is the IMDS the helpers read (imds.Client).
type Metadata interface {
	MAC(ctx context.Context) (string, error)
	IdentityDocument(ctx context.Context) (imds.InstanceIdentity, error)
	Interface(ctx context.Context, mac string) (imds.NetworkInterface, error)
}

// Runner runs a command and returns its standard output (host.ExecRunner).
type Runner interface {
	Output(ctx context.Context, name string, args ...string) ([]byte, error)
}

// Helper runs the two commands against the machine under Root.
type Helper struct {
	Root     string
	Metadata Metadata
	// Run runs networkctl.
	Run Runner
	Log *slog.Logger
	// Poll and Timeout tune BootHook; zero means DefaultPoll and
	// DefaultTimeout.
	Poll, Timeout time.Duration
}

func (h Helper) path(nodePath string) string { return filepath.Join(h.Root, nodePath) }

// checkName rejects what cannot be a network interface name (and would
// escape the directories the name is joined to).
func checkName(iface string) error {
	if iface == "" || len(iface) > 15 || strings.ContainsAny(iface, "/\x00 ") || iface == "." || iface == ".." {
		return fmt.Errorf("invalid interface name %q", iface)
	}
	return nil
}

// mac reads an interface's MAC address from sysfs.
func (h Helper) mac(iface string) (string, error) {
	if err := checkName(iface); err != nil {
		return "", err
	}
	b, err := os.ReadFile(h.path(path.Join("/sys/class/net", iface, "address")))
	if err != nil {
		return "", fmt.Errorf("MAC address of %s: %w", iface, err)
	}
	return strings.ToLower(strings.TrimSpace(string(b))), nil
}

func (h Helper) decisionPath(instanceID, iface string) string {
	return path.Join(DecisionDir, instanceID, iface)
}

// UdevAdd handles an interface that appeared: it decides (or recalls) who
// manages it and, for networkd, writes its .network file, and for the
// primary interface the drop-in that switches off the catch-all config.
// networkd picks the files up on `networkctl reload` (the unit runs it).
func (h Helper) UdevAdd(ctx context.Context, iface string) error {
	mac, err := h.mac(iface)
	if err != nil {
		return err
	}
	primary, err := h.Metadata.MAC(ctx)
	if err != nil {
		return fmt.Errorf("primary MAC: %w", err)
	}
	id, err := h.Metadata.IdentityDocument(ctx)
	if err != nil {
		return fmt.Errorf("instance id: %w", err)
	}
	d, err := h.decide(id.ID, iface, mac)
	if err != nil {
		return err
	}
	h.Log.Info("interface manager", "interface", iface, "mac", mac, "manager", d.Manager)
	if d.Manager != ManagerNetworkd {
		return nil
	}
	link := Link{MAC: mac, Primary: strings.EqualFold(mac, primary)}
	info, err := h.Metadata.Interface(ctx, mac)
	if err != nil {
		return fmt.Errorf("%s in IMDS: %w", iface, err)
	}
	link.DeviceNumber, link.NetworkCard = info.DeviceNumber, info.NetworkCard
	if len(info.LocalIPv4s) > 0 {
		link.IPv4 = info.LocalIPv4s[0]
	}
	files := []render.File{{Path: NetworkFilePath(iface), Mode: 0o644, Data: NetworkFile(link)}}
	if link.Primary {
		files = append(files, render.File{Path: DisableDefaultPath, Mode: 0o644, Data: DisableDefault()})
	}
	if _, err := (apply.Writer{Root: h.Root}).Apply(files, nil); err != nil {
		return err
	}
	h.Log.Info("wrote network config", "path", NetworkFilePath(iface), "primary", link.Primary)
	return nil
}

// decide recalls the interface's decision or makes and remembers one.
func (h Helper) decide(instanceID, iface, mac string) (Decision, error) {
	file := h.path(h.decisionPath(instanceID, iface))
	var remembered *Decision
	if b, err := os.ReadFile(file); err == nil {
		if d, ok := ParseDecision(b); ok {
			remembered = &d
		} else {
			h.Log.Warn("ignoring an unreadable remembered decision", "path", file)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Decision{}, err
	}
	_, err := os.Stat(h.path(RunStartedMarker))
	runStarted := err == nil
	d, fresh := Decide(remembered, mac, runStarted)
	if !fresh {
		return d, nil
	}
	remember := render.File{Path: h.decisionPath(instanceID, iface), Mode: 0o644, Data: d.Encode()}
	if _, err := (apply.Writer{Root: h.Root}).Apply([]render.File{remember}, nil); err != nil {
		// The decision still holds for this event; it is made again next time.
		h.Log.Warn("could not remember the interface's manager", "path", file, "error", err)
	}
	return d, nil
}

// UdevRemove handles an interface that went away: its .network file goes;
// the remembered decision stays (the ENI may come back).
func (h Helper) UdevRemove(_ context.Context, iface string) error {
	if err := checkName(iface); err != nil {
		return err
	}
	err := os.Remove(h.path(NetworkFilePath(iface)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// BootHook waits until the primary interface and the interfaces remembered
// for networkd are configured and every other link is unmanaged, polling
// networkctl, for at most Timeout.
func (h Helper) BootHook(ctx context.Context) error {
	managed, err := h.managedLinks(ctx)
	if err != nil {
		return err
	}
	h.Log.Info("waiting for network links", "managed", managed)
	poll, timeout := h.Poll, h.Timeout
	if poll <= 0 {
		poll = DefaultPoll
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(poll)
	defer tick.Stop()
	waiting := "nothing checked yet"
	for {
		ok, why, err := h.linksReady(ctx, managed)
		switch {
		case err != nil:
			return err
		case ok:
			h.Log.Info("network links ready", "managed", managed)
			return nil
		case why != "":
			waiting = why
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w within %s: waiting for %s", ErrNotReady, timeout, waiting)
		case <-tick.C:
		}
	}
}

// managedLinks names the links networkd must have configured before the
// boot goes on: the primary interface and those remembered as networkd's.
func (h Helper) managedLinks(ctx context.Context) ([]string, error) {
	primaryMAC, err := h.Metadata.MAC(ctx)
	if err != nil {
		return nil, fmt.Errorf("primary MAC: %w", err)
	}
	id, err := h.Metadata.IdentityDocument(ctx)
	if err != nil {
		return nil, fmt.Errorf("instance id: %w", err)
	}
	primary, err := h.linkWithMAC(primaryMAC)
	if err != nil {
		return nil, err
	}
	return append([]string{primary}, h.rememberedNetworkd(id.ID)...), nil
}

// linksReady asks networkctl once: whether the managed links are ready,
// else what is awaited ("" when networkctl did not answer because ctx
// ended). A networkctl failure before then is an error.
func (h Helper) linksReady(ctx context.Context, managed []string) (bool, string, error) {
	out, err := h.Run.Output(ctx, "networkctl", "list", "--json=short")
	if err != nil {
		if ctx.Err() == nil {
			return false, "", fmt.Errorf("networkctl list: %w", err)
		}
		return false, "", nil
	}
	links, err := ParseNetworkctl(out)
	if err != nil {
		return false, "", err
	}
	ok, waiting := Ready(links, managed)
	return ok, waiting, nil
}

// linkWithMAC finds the interface that has mac.
func (h Helper) linkWithMAC(mac string) (string, error) {
	entries, err := os.ReadDir(h.path("/sys/class/net"))
	if err != nil {
		return "", fmt.Errorf("list network interfaces: %w", err)
	}
	for _, e := range entries {
		if got, err := h.mac(e.Name()); err == nil && strings.EqualFold(got, mac) {
			return e.Name(), nil
		}
	}
	return "", fmt.Errorf("no network interface has the primary MAC %s", mac)
}

// rememberedNetworkd lists the interfaces remembered as networkd's whose
// current MAC is still the one decided for (an interface name now used by
// another ENI does not count).
func (h Helper) rememberedNetworkd(instanceID string) []string {
	dir := h.path(path.Join(DecisionDir, instanceID))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		d, ok := ParseDecision(b)
		if !ok || d.Manager != ManagerNetworkd {
			continue
		}
		if mac, err := h.mac(e.Name()); err != nil || (d.MAC != "" && !strings.EqualFold(d.MAC, mac)) {
			h.Log.Info("not waiting for a remembered interface that is gone or replaced", "interface", e.Name())
			continue
		}
		out = append(out, e.Name())
	}
	return out
}
