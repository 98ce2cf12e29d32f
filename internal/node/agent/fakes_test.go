package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/nodeboot/nodeboot/internal/aws/imds"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/node/service"
)

// fakeMetadata serves fixed instance metadata and counts lookups.
type fakeMetadata struct {
	userData []byte
	instance hub.InstanceStatus
	ipv6s    []string
	vpcCIDRs []string
	// lifecycle is instance-life-cycle; "" answers 404.
	lifecycle string

	mu    sync.Mutex
	calls map[string]int
}

func (m *fakeMetadata) count(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.calls == nil {
		m.calls = map[string]int{}
	}
	m.calls[name]++
}

func (m *fakeMetadata) UserData(context.Context) ([]byte, error) {
	m.count("user-data")
	if m.userData == nil {
		return nil, fmt.Errorf("imds user-data: %w", imds.ErrNotFound)
	}
	return m.userData, nil
}

func (m *fakeMetadata) Instance(context.Context, imds.Want) (hub.InstanceStatus, error) {
	m.count("instance")
	return m.instance, nil
}

func (m *fakeMetadata) IPv6s(context.Context, string) ([]string, error) {
	m.count("ipv6s")
	return m.ipv6s, nil
}

func (m *fakeMetadata) VPCIPv4CIDRs(context.Context, string) ([]string, error) {
	m.count("vpc-ipv4-cidr-blocks")
	return m.vpcCIDRs, nil
}

func (m *fakeMetadata) InstanceLifecycle(context.Context) (string, error) {
	m.count("instance-life-cycle")
	if m.lifecycle == "" {
		return "", fmt.Errorf("imds meta-data/instance-life-cycle: %w", imds.ErrNotFound)
	}
	return m.lifecycle, nil
}

// fakeCloud answers AWS API calls and counts them.
type fakeCloud struct {
	dnsName string
	limits  map[string]hub.NetworkLimits
	cluster ClusterInfo

	mu    sync.Mutex
	calls map[string]int
}

func (c *fakeCloud) count(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[name]++
}

func (c *fakeCloud) PrivateDNSName(context.Context, string) (string, error) {
	c.count("DescribeInstances")
	return c.dnsName, nil
}

func (c *fakeCloud) InstanceTypeLimits(_ context.Context, t string) (hub.NetworkLimits, error) {
	c.count("DescribeInstanceTypes")
	l, ok := c.limits[t]
	if !ok {
		return hub.NetworkLimits{}, fmt.Errorf("InvalidInstanceType: %s", t)
	}
	return l, nil
}

func (c *fakeCloud) DescribeCluster(context.Context, string) (ClusterInfo, error) {
	c.count("DescribeCluster")
	return c.cluster, nil
}

func (c *fakeCloud) factory() CloudFactory {
	return func(context.Context, hub.InstanceStatus) (Cloud, error) { return c, nil }
}

// hostTree writes the sysfs/procfs and version files a node has.
type hostTree struct {
	cpus              string // /sys/devices/system/cpu/online
	memKB             int
	kubeletVersion    string
	containerdVersion string
	nvidiaGPU         bool
	nvidiaRuntime     bool
}

func (h hostTree) write(t *testing.T, root string) {
	t.Helper()
	files := map[string]string{
		"/sys/devices/system/cpu/online":  h.cpus + "\n",
		"/proc/meminfo":                   fmt.Sprintf("MemTotal:       %d kB\n", h.memKB),
		"/etc/eks/kubelet-version.txt":    h.kubeletVersion + "\n",
		"/etc/eks/containerd-version.txt": h.containerdVersion + "\n",
	}
	if h.nvidiaGPU {
		files["/sys/bus/pci/devices/0000:00:1e.0/vendor"] = "0x10de\n"
	}
	if h.nvidiaRuntime {
		files["/usr/bin/nvidia-container-runtime"] = ""
	}
	for p, data := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type recorder struct{ r service.Recorder }

func (r *recorder) manager(context.Context) (service.Manager, error) { return &r.r, nil }
