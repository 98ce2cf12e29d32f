package doctor

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/kubeleteffective"
	"github.com/nodeboot/nodeboot/internal/node/render/system"
)

// copyGolden copies a rendered node file from render/kubelet's golden data.
func copyGolden(t *testing.T, root, scenario, nodePath string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../render/kubelet/testdata", scenario, "expected", nodePath))
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, nodePath, string(b))
}

func TestReadKubeletFacts(t *testing.T) {
	root := t.TempDir()
	const scenario = "user-kubelet-config-dropin"
	for _, p := range []string{"/etc/eks/kubelet/environment", "/etc/kubernetes/kubelet/config.json", "/etc/kubernetes/kubelet/config.json.d/40-nodeadm.conf"} {
		copyGolden(t, root, scenario, p)
	}
	// The environment files exactly as nodeboot renders them.
	files, _ := system.Render(hub.NodeConfig{Spec: hub.Spec{Instance: hub.Instance{Environment: map[string]map[string]string{
		"default": {"HTTPS_PROXY": "http://ops:p%w\"d@proxy:3128", "NO_PROXY": "10.0.0.0/8,.internal"},
		"kubelet": {"AWS_REGION": "eu-west-1", "NO_PROXY": "localhost"},
	}}}})
	for _, f := range files {
		write(t, root, f.Path, string(f.Data))
	}
	k := ReadKubeletFacts(Files{Root: root}, "Ignored")
	if k.ArgsErr != nil || k.ConfigErr != nil {
		t.Fatalf("errors: %v, %v", k.ArgsErr, k.ConfigErr)
	}
	want := map[string]string{"HTTPS_PROXY": "http://ops:p%w\"d@proxy:3128", "NO_PROXY": "localhost", "AWS_REGION": "eu-west-1", "PATH": systemdDefaultPath}
	if !reflect.DeepEqual(k.Env(), want) {
		t.Errorf("service environment %q, want %q", k.Env(), want)
	}
	if k.NodeName != "ip-10-0-12-34.us-west-2.compute.internal" || k.NameSource != "--hostname-override" || k.NodeIP != "10.0.12.34" ||
		k.Kubeconfig != "/var/lib/kubelet/kubeconfig" || k.BootstrapKubeconfig != "" {
		t.Errorf("facts %+v", k)
	}
	if k.Config.ProviderID != "aws:///us-west-2a/i-0a1b2c3d4e5f60718" || k.Config.ServerTLSBootstrap == nil || !*k.Config.ServerTLSBootstrap ||
		k.ServingCertPath() != "/var/lib/kubelet/pki/kubelet-server-current.pem" || k.RuntimeEndpoint() != "unix:///run/containerd/containerd.sock" {
		t.Errorf("config %+v", k.Config)
	}
	// The golden drop-in sets the cgroup driver over the base config's.
	if got := k.EffectiveCgroupDriver(); got != dropInDriver(t, scenario) {
		t.Errorf("cgroup driver %q", got)
	}
}

func dropInDriver(t *testing.T, scenario string) string {
	t.Helper()
	merged, err := kubeleteffective.Read(os.DirFS(filepath.Join("../render/kubelet/testdata", scenario, "expected")),
		"/etc/kubernetes/kubelet/config.json", "/etc/kubernetes/kubelet/config.json.d")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct{ CgroupDriver string }
	if err := json.Unmarshal(merged, &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg.CgroupDriver
}

func TestReadKubeletFactsFlagsAndFallbacks(t *testing.T) {
	root := t.TempDir()
	write(t, root, "/etc/eks/kubelet/environment", `NODEADM_KUBELET_ARGS=--config=/c.json --hostname-override=a --hostname-override=b --cgroup-driver=systemd --cert-dir=/pki --bootstrap-kubeconfig=/boot`+"\n")
	write(t, root, "/c.json", `{"cgroupDriver":"cgroupfs","serverTLSBootstrap":false}`)
	k := ReadKubeletFacts(Files{Root: root}, "host")
	if k.NodeName != "b" || k.Config.CgroupDriver != "systemd" || k.ServingCertPath() != "/pki/kubelet-server-current.pem" || k.BootstrapKubeconfig != "/boot" || k.Kubeconfig != "" {
		t.Errorf("facts %+v", k)
	}
	empty := ReadKubeletFacts(Files{Root: t.TempDir()}, "IP-10-0-0-1.EC2.Internal")
	if empty.ArgsErr == nil || empty.NodeName != "ip-10-0-0-1.ec2.internal" || empty.NameSource != "the host name" || empty.Kubeconfig != "/var/lib/kubelet/kubeconfig" {
		t.Errorf("facts without files %+v", empty)
	}
}
