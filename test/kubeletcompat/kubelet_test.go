//go:build kubeletcompat

// Package kubeletcompat runs real kubelets of the oldest minors nodeboot
// renders for on the files it renders, and reads back the configuration
// each would run with. Run it with `make kubelet-compat`, which first builds
// the kubelets (test/e2e/scripts/build-kubelet-compat.sh).
//
// A kubelet logs its effective KubeletConfiguration (base file, drop-ins
// and flags merged, validated) at -v=5 before it connects to anything; the
// test reads that JSON log line and stops the kubelet. No control plane or
// container runtime is involved, and nothing is written outside a scratch
// directory.
package kubeletcompat

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
	"github.com/nodeboot/nodeboot/internal/config/systemdsyntax"
	"github.com/nodeboot/nodeboot/internal/node/render"
	"github.com/nodeboot/nodeboot/internal/node/render/kubelet"
)

// kubelets are the binaries the test runs: the 1.28 and 1.31 ones built for
// it and the e2e suite's 1.34 one.
var kubelets = []struct{ version, path string }{
	{"v1.28.15", "kubelet-compat/kubelet-v1.28.15"},
	{"v1.31.0", "kubelet-compat/kubelet-v1.31.0"},
	{"v1.34.4", "e2e/bin/kubelet"},
}

// kubeletBinary finds a kubelet under .cache (or $NODEBOOT_KUBELET_CACHE).
func kubeletBinary(t *testing.T, rel string) string {
	t.Helper()
	cache := os.Getenv("NODEBOOT_KUBELET_CACHE")
	if cache == "" {
		repo, err := filepath.Abs("../..")
		if err != nil {
			t.Fatal(err)
		}
		cache = filepath.Join(repo, ".cache")
	}
	p := filepath.Join(cache, rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("missing %s: run test/e2e/scripts/build-kubelet-compat.sh (and build-k8s.sh) first", p)
	}
	return p
}

// effective is the part of the kubelet's internal KubeletConfiguration the
// tests look at (its log uses the Go field names).
type effective struct {
	Address              string
	CgroupDriver         string
	MaxPods              int32
	PodPidsLimit         int64
	EvictionHard         map[string]string
	KubeReserved         map[string]string
	KubeReservedCgroup   string
	SystemReservedCgroup string
	ReservedSystemCPUs   string
	ClusterDNS           []string
}

// nodeConfig is a rendered node for kubelet version v.
func nodeConfig(t *testing.T, v string, k hub.Kubelet) hub.NodeConfig {
	t.Helper()
	ca, err := os.ReadFile("../../internal/node/agent/testdata/ca.pem")
	if err != nil {
		t.Fatal(err)
	}
	return hub.NodeConfig{
		Spec: hub.Spec{
			Cluster: hub.Cluster{Name: "compat", APIServerEndpoint: "https://compat.example.com", CIDR: "10.100.0.0/16", CertificateAuthority: ca},
			Kubelet: k,
		},
		Status: hub.Status{
			Instance: hub.InstanceStatus{ID: "i-0123456789abcdef0", Region: "us-west-2", Type: "m5.large", AvailabilityZone: "us-west-2a",
				PrivateDNSName: "ip-10-0-0-5.us-west-2.compute.internal", NodeIP: "10.0.0.5"},
			KubeletVersion: v,
		},
	}
}

// renderAndRun renders cfg (without a credential provider, which needs a
// binary) under a scratch root and runs the kubelet on it exactly as
// kubelet.service would, plus flags that keep it away from the machine.
func renderAndRun(t *testing.T, bin string, cfg hub.NodeConfig) effective {
	t.Helper()
	files, err := kubelet.Render(cfg, kubelet.Inputs{MaxPods: 29, SetMaxPods: true,
		KubeReserved: map[string]string{"cpu": "70m", "memory": "574Mi", "ephemeral-storage": "1Gi"}})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	writeFiles(t, root, files)
	args, env := readEnvironment(t, filepath.Join(root, kubelet.EnvironmentPath))
	for i, a := range args { // the rendered paths, under the scratch root
		for _, p := range []string{kubelet.ConfigPath, kubelet.ConfigDir} {
			if strings.HasSuffix(a, "="+p) {
				args[i] = strings.TrimSuffix(a, p) + filepath.Join(root, p)
			}
		}
	}
	// The base file names the CA at its node path, which the kubelet reads
	// before it logs its configuration.
	args = append(args, "--client-ca-file="+filepath.Join(root, kubelet.CACertPath))
	return runKubelet(t, bin, root, args, env)
}

func writeFiles(t *testing.T, root string, files []render.File) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(root, f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, f.Mode); err != nil {
			t.Fatal(err)
		}
	}
}

// readEnvironment splits the EnvironmentFile into the kubelet arguments
// and the other variables, as systemd reads it.
func readEnvironment(t *testing.T, path string) (args, env []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	vars := systemdsyntax.ParseEnvironmentFile(data)
	if args, err = kubeletflag.SystemdWords(vars[kubelet.ArgsVariable]); err != nil {
		t.Fatal(err)
	}
	delete(vars, kubelet.ArgsVariable)
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	return args, env
}

// runKubelet starts the kubelet with args, reads its effective
// configuration from the log, and stops it. The flags added keep its state,
// certificates and runtime socket in root and turn on the JSON log at -v=5.
func runKubelet(t *testing.T, bin, root string, args, env []string) effective {
	t.Helper()
	// The wait is bounded only to catch a hang: the line comes within a
	// second or two.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	args = append(args, "--logging-format=json", "-v=5",
		"--root-dir="+filepath.Join(root, "var/lib/kubelet"), "--cert-dir="+filepath.Join(root, "pki"),
		"--container-runtime-endpoint=unix://"+filepath.Join(root, "no-runtime.sock"))
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	out, w, err := os.Pipe() // the JSON log goes to stdout, errors to stderr
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = w, w
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	var log strings.Builder
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var entry struct {
			Msg           string          `json:"msg"`
			Configuration json.RawMessage `json:"configuration"`
		}
		if json.Unmarshal(line, &entry) == nil && entry.Msg == "KubeletConfiguration" {
			var eff effective
			if err := json.Unmarshal(entry.Configuration, &eff); err != nil {
				t.Fatalf("decode the logged configuration: %v", err)
			}
			return eff
		}
		log.Write(line)
		log.WriteByte('\n')
	}
	t.Fatalf("kubelet %s ended without logging its configuration (rejected?):\n%s", strings.Join(args, " "), log.String())
	return effective{}
}

// TestRenderedUserConfigReadsTheSameEverywhere: every kubelet runs with the
// base file's values and the user's kubelet.config on top, whatever the
// version (1.28 gets them merged into the base file, later ones a drop-in).
func TestRenderedUserConfigReadsTheSameEverywhere(t *testing.T) {
	user := hub.Kubelet{Config: map[string]json.RawMessage{
		"maxPods":      json.RawMessage(`17`),
		"podPidsLimit": json.RawMessage(`4096`),
		"evictionHard": json.RawMessage(`{"nodefs.inodesFree":null,"memory.available":"200Mi"}`),
	}}
	for _, k := range kubelets {
		t.Run(k.version, func(t *testing.T) {
			eff := renderAndRun(t, kubeletBinary(t, k.path), nodeConfig(t, k.version, user))
			if eff.CgroupDriver != "systemd" || eff.MaxPods != 17 || eff.PodPidsLimit != 4096 ||
				eff.KubeReservedCgroup != "/runtime" || !reflect.DeepEqual(eff.ClusterDNS, []string{"10.100.0.10"}) {
				t.Errorf("effective config %+v", eff)
			}
			if want := map[string]string{"memory.available": "200Mi", "nodefs.available": "10%"}; !reflect.DeepEqual(eff.EvictionHard, want) {
				t.Errorf("evictionHard = %v, want %v (base file, user value, user removal)", eff.EvictionHard, want)
			}
		})
	}
}

// TestReservedCPUsStart: CPUs reserved in any of the ways user data can
// say it give a configuration every kubelet accepts (it refuses
// reservedSystemCPUs next to reserved cgroups).
func TestReservedCPUsStart(t *testing.T) {
	cgroupNulls := map[string]json.RawMessage{
		"kubeReservedCgroup":   json.RawMessage(`null`),
		"systemReservedCgroup": json.RawMessage(`null`),
	}
	for _, tc := range []struct {
		name string
		k    hub.Kubelet
	}{
		// bootstrap.sh's --kubelet-extra-args --reserved-cpus: the flag, and
		// null for both reserved cgroups.
		{"bootstrap.sh", hub.Kubelet{Flags: []string{"--reserved-cpus=0"}, Config: cgroupNulls}},
		{"kubelet.flags", hub.Kubelet{Flags: []string{"--reserved-cpus", "0"}}},
		{"kubelet.config", hub.Kubelet{Config: map[string]json.RawMessage{"reservedSystemCPUs": json.RawMessage(`"0"`)}}},
	} {
		for _, k := range kubelets {
			t.Run(tc.name+"/"+k.version, func(t *testing.T) {
				eff := renderAndRun(t, kubeletBinary(t, k.path), nodeConfig(t, k.version, tc.k))
				if eff.ReservedSystemCPUs != "0" || eff.KubeReservedCgroup != "" || eff.SystemReservedCgroup != "" {
					t.Errorf("effective config %+v", eff)
				}
			})
		}
	}
}

// The tests below pin the kubelet behaviour the renderer's choices rest on,
// with hand-written files, so that a kubelet that changes it is noticed.

// baseFile is a base config whose values differ from the kubelet defaults.
const baseFile = `{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1",
"cgroupDriver":"systemd","maxPods":29,"address":"127.0.0.1",
"kubeReservedCgroup":"/runtime","systemReservedCgroup":"/system"}`

func runHandWritten(t *testing.T, k struct{ version, path string }, dropIn string) effective {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, []render.File{
		{Path: "/config.json", Mode: 0o644, Data: []byte(baseFile)},
		{Path: "/config.json.d/40-test.conf", Mode: 0o644, Data: []byte(dropIn)},
	})
	return runKubelet(t, kubeletBinary(t, k.path), root,
		[]string{"--config=" + filepath.Join(root, "config.json"), "--config-dir=" + filepath.Join(root, "config.json.d")},
		[]string{"KUBELET_CONFIG_DROPIN_DIR_ALPHA=on"})
}

// TestKubelet128DropInResetsBaseValues: a 1.28 kubelet applies its defaults
// to a drop-in, and they override the base file — why nodeboot writes no
// drop-in below 1.29. Later kubelets keep the base values.
func TestKubelet128DropInResetsBaseValues(t *testing.T) {
	dropIn := `{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1","podPidsLimit":4096}`
	for _, k := range kubelets {
		t.Run(k.version, func(t *testing.T) {
			eff := runHandWritten(t, k, dropIn)
			reset := eff.CgroupDriver == "cgroupfs" && eff.MaxPods == 110 && eff.Address == "0.0.0.0"
			kept := eff.CgroupDriver == "systemd" && eff.MaxPods == 29 && eff.Address == "127.0.0.1"
			if want := k.version == "v1.28.15"; (want && !reset) || (!want && !kept) || eff.PodPidsLimit != 4096 {
				t.Errorf("effective config %+v", eff)
			}
		})
	}
}

// TestNullInDropIn: before 1.32 a null in a drop-in does not remove the base
// value — why nodeboot applies nulls to the base file instead.
func TestNullInDropIn(t *testing.T) {
	dropIn := `{"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1","kubeReservedCgroup":null}`
	for _, k := range kubelets {
		t.Run(k.version, func(t *testing.T) {
			eff := runHandWritten(t, k, dropIn)
			removes := k.version == "v1.34.4"
			if got := eff.KubeReservedCgroup == ""; got != removes {
				t.Errorf("kubeReservedCgroup = %q after a null in the drop-in; want removed: %v", eff.KubeReservedCgroup, removes)
			}
		})
	}
}
