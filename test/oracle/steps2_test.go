//go:build oracle

package oracle

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/testing/nodeview"
)

func init() {
	cases["containerd-base-runtime-spec"] = nodeadmCase{runSH: "6e908ef886c3d2f0", containerd: []string{"2.0.5", "1.7.27"}, steps: func(t *testing.T, p *pair) {
		p.both(t, func(n *node) error { return n.mockKubelet("1.27.0") })
		p.boots(t, nil, "nodeadm", "init", "--skip", "run", "--config-source", "file://config.yaml")
		p.expectNodeadm(t, nodeadmFile{"bytes", "/etc/containerd/base-runtime-spec.json", "expected-base-runtime-spec.json"})
	}}
	containerdV1 := func(sha, kubelet string, nvidia bool) nodeadmCase {
		return nodeadmCase{runSH: sha, steps: func(t *testing.T, p *pair) {
			p.both(t, func(n *node) error { return n.mockKubelet(kubelet) })
			if nvidia {
				p.both(t, func(n *node) error { return n.write("/usr/bin/nvidia-container-runtime", "", 0o644) })
			}
			p.boots(t, nil, "nodeadm", "init", "--skip", "run", "--config-source", "file://configv2.yaml")
			p.expectNodeadm(t, nodeadmFile{"bytes", "/etc/containerd/config.toml", "expected-containerd-config.toml"})
			p.refuses(t, nil, "nodeadm", "init", "--skip", "run", "--config-source", "file://configv3.yaml")
		}}
	}
	cases["containerdv1-runtime-config-neuron"] = containerdV1("d4ab730a96cc3d88", "1.27.0", false)
	cases["containerdv1-runtime-config-nvidia"] = containerdV1("8b3e07dd5560c2c6", "1.27.0", true)
	cases["containerdv1-config"] = nodeadmCase{runSH: "fb3022645979b38e", steps: func(t *testing.T, p *pair) {
		p.both(t, func(n *node) error { return n.mockKubelet("1.31.0") })
		p.boots(t, nil, "nodeadm", "init", "--skip", "run", "--config-source", "file://configv2.yaml")
		p.expectNodeadm(t, nodeadmFile{"bytes", "/etc/containerd/config.toml", "expected-containerd-config-pre-1.32.toml"})
		p.both(t, func(n *node) error { return n.mockKubelet("1.32.0") })
		p.boots(t, nil, "nodeadm", "init", "--skip", "run", "--config-source", "file://configv2.yaml")
		p.expectNodeadm(t, nodeadmFile{"bytes", "/etc/containerd/config.toml", "expected-containerd-config.toml"})
		p.refuses(t, nil, "nodeadm", "init", "--skip", "run", "--config-source", "file://configv3.yaml")
	}}
	containerdV2 := func(sha string, nvidia bool) nodeadmCase {
		return nodeadmCase{runSH: sha, containerd: []string{"2.0.5"}, steps: func(t *testing.T, p *pair) {
			p.both(t, func(n *node) error { return n.mockKubelet("1.32.0") })
			if nvidia {
				p.both(t, func(n *node) error { return n.write("/usr/bin/nvidia-container-runtime", "", 0o644) })
			}
			p.bootsMigrated(t, "configv2.yaml", "expected-containerd-configv2.toml")
			p.boots(t, nil, "nodeadm", "init", "--skip", "run", "--config-source", "file://configv3.yaml")
			p.expectNodeadm(t, nodeadmFile{"bytes", "/etc/containerd/config.toml", "expected-containerd-configv3.toml"})
		}}
	}
	cases["containerdv2-config"] = containerdV2("b47a5ecc2e2fcb36", false)
	cases["containerdv2-runtime-config-neuron"] = containerdV2("6c8f5aca23af7b48", false)
	cases["containerdv2-runtime-config-nvidia"] = containerdV2("275004cf8f7dea7d", true)
	cases["local-disks"] = nodeadmCase{runSH: "fb72b324ca23c5ac", steps: func(t *testing.T, p *pair) {
		p.both(t, func(n *node) error { return n.mockKubelet("1.35.0") })
		p.both(t, func(n *node) error {
			return n.write("/usr/bin/setup-local-disks", "#!/bin/sh\nmkdir -p /var/log\necho \"$1\" >> /var/log/setup-local-disks.log\n", 0o755)
		})
		p.boots(t, nil, "nodeadm", "init", "--daemon=", "--config-source", "file://config.yaml")
		p.expectNodeadm(t, nodeadmFile{"contains", "/var/log/setup-local-disks.log", "raid0"})
	}}
	cases["udev-net-manager"] = nodeadmCase{runSH: "b10e555227476190", steps: udevNetManager}
	cases["boot-hook"] = nodeadmCase{runSH: "bfc61d290be8e60f", steps: bootHook}
	cases["imds-timeouts"] = nodeadmCase{runSH: "2de039e2ba0587c2", lateIMDS: 10 * time.Second, steps: imdsTimeouts}
	cases["aws-api-connection-timeout"] = nodeadmCase{runSH: "fc74571d0c5028cf", blackholeEC2: true, steps: connectionTimeout}
	cases["nodeadm-http-proxy"] = nodeadmCase{runSH: "67488b1305da5b87", proxy: true, steps: httpProxy}
}

// bootsMigrated is a step on containerd 2 with a version 2 containerd
// TOML: nodeadm renders it and has `containerd config migrate` rewrite it
// (which needs containerd 2's binary); nodeboot writes version 2 and lets
// containerd 2 migrate it when it loads it.
//
// No containerd 2 binary is built for the oracle (containerd 2.0.5, the
// version the case's expected dump comes from, is not served by the module
// proxy here, and a containerd build would cost minutes cold), so nodeadm
// fails at the migrate step: the step is not compared, only counted
// (docs/nodeadm-oracle.md), and nodeboot must boot it.
func (p *pair) bootsMigrated(t *testing.T, config, expected string) {
	t.Helper()
	o := p.run(t, nil, "nodeadm", "init", "--skip", "run", "--config-source", "file://"+config)
	if o.nodeadm.code != 0 && strings.Contains(o.nodeadm.stderr, "Migrate containerd config to V3") {
		t.Logf("not compared: nodeadm runs `containerd config migrate`, which needs containerd 2's binary (%s)", expected)
		p.stats.notCompared("containerd-2-config-migrate")
		if o.nodeboot.code != 0 {
			t.Errorf("nodeboot does not boot a version 2 containerd config on containerd 2:\n%s", o.nodeboot)
		}
		return
	}
	if o.nodeadm.code != 0 || o.nodeboot.code != 0 {
		t.Fatalf("nodeadm:\n%s\nnodeboot:\n%s", o.nodeadm, o.nodeboot)
	}
	p.compare(t, "init "+config)
	p.expectNodeadm(t, nodeadmFile{"bytes", "/etc/containerd/config.toml", expected})
}

const primaryIface = "eth0"

// udevNetManager retells udev-net-manager: add and remove the primary
// interface, with and without the run marker and the cache.
func udevNetManager(t *testing.T, p *pair) {
	netFile := "/run/systemd/network/70-eks-" + primaryIface + ".network"
	cacheFile := "/etc/eks/nodeadm/udev-net-manager/i-1234567890abcdef0/" + primaryIface
	udev := func(action string) {
		p.boots(t, nil, "nodeadm-internal", "udev-net-manager", "--action", action, "--interface", primaryIface)
	}
	udev("add")
	p.expectNodeadm(t, nodeadmFile{"bytes", netFile, "70-eks.network"}, nodeadmFile{"contains", cacheFile, "io.systemd.Network"})
	udev("remove")
	p.both(t, func(n *node) error { return n.write("/run/nodeadm/init", "", 0o644) })
	udev("add")
	p.expectNodeadm(t, nodeadmFile{"bytes", netFile, "70-eks.network"})
	udev("remove")
	p.both(t, func(n *node) error { return n.remove("/etc/eks/nodeadm/udev-net-manager") })
	udev("add")
	p.expectNodeadm(t, nodeadmFile{"absent", netFile, ""}, nodeadmFile{"contains", cacheFile, "cni"})
	udev("remove")
	p.compareCaches(t, cacheFile)
}

// compareCaches compares a file both agents keep for nodeadm's tooling.
func (p *pair) compareCaches(t *testing.T, nodePath string) {
	t.Helper()
	a, errA := os.ReadFile(p.nodeadm.root.Path(nodePath))
	b, errB := os.ReadFile(p.nodeboot.root.Path(nodePath))
	if errA != nil || errB != nil {
		t.Errorf("%s: nodeadm %v, nodeboot %v", nodePath, errA, errB)
		return
	}
	d := nodeview.Difference{Path: "netmanager-cache:" + nodePath, A: strings.TrimSpace(string(a)), B: strings.TrimSpace(string(b))}
	if d.A == d.B {
		return
	}
	if e := explain(d, p.name); e != nil {
		p.stats.explained(e.id)
		return
	}
	t.Errorf("%s (nodeadm ≠ nodeboot) is not a deliberate difference", d)
}

// linkStates are every state networkctl reports, as boot-hook's run.sh
// cycles through them.
var linkStates = []string{"missing", "off", "no-carrier", "dormant", "degraded-carrier", "carrier", "degraded",
	"enslaved", "routable", "pending", "initialized", "configuring", "configured", "unmanaged", "failed", "linger"}

// bootHook retells boot-hook: the hook must wait while the links pass
// through every state that is not the expected final one, then return.
func bootHook(t *testing.T, p *pair) {
	mock, err := os.ReadFile(tool.InfraFile("mock/system/networkctl-mock"))
	if err != nil {
		t.Fatal(err)
	}
	p.both(t, func(n *node) error { return n.write("/mock/bin/networkctl", string(mock), 0o755) })
	p.both(t, func(n *node) error {
		return setLinks(n, map[string]string{"eth0": "pending", "eth1": "pending", "lo": "pending"})
	})
	for _, final := range []struct{ manager, eth1 string }{{"io.systemd.Network", "configured"}, {"cni", "unmanaged"}} {
		p.both(t, func(n *node) error {
			return n.write("/etc/eks/nodeadm/udev-net-manager/i-1234567890abcdef0/eth1", final.manager+"\n", 0o644)
		})
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		for _, n := range []*node{p.nodeadm, p.nodeboot} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cycleLinks(ctx, t, n, map[string]string{"eth0": "configured", "eth1": final.eth1, "lo": "unmanaged"})
			}()
		}
		p.boots(t, nil, "nodeadm-internal", "boot-hook")
		cancel()
		wg.Wait()
	}
}

// cycleLinks moves the links through every combination run.sh's
// mock-states produces, then to the final states.
func cycleLinks(ctx context.Context, t *testing.T, n *node, final map[string]string) {
	for _, primary := range linkStates {
		if primary == "configured" {
			continue
		}
		for _, secondary := range linkStates {
			if secondary == "unmanaged" || ctx.Err() != nil {
				continue
			}
			if err := setLinks(n, map[string]string{"eth0": primary, "eth1": secondary, "lo": secondary}); err != nil {
				t.Error(err)
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := setLinks(n, final); err != nil {
		t.Error(err)
	}
}

// setLinks writes the networkctl mock's state file (atomically: the mock
// reads it under a lock we do not take).
func setLinks(n *node, states map[string]string) error {
	type iface struct{ Name, AdministrativeState string }
	var doc struct{ Interfaces []iface }
	for _, name := range []string{"eth0", "eth1", "lo"} {
		doc.Interfaces = append(doc.Interfaces, iface{name, states[name]})
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	tmp := n.root.Path("/mock/config/.networkctl-list.json")
	if err := n.write("/mock/config/.networkctl-list.json", string(b), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, n.root.Path("/mock/config/networkctl-list.json"))
}

// imdsTimeouts retells imds-timeouts: without IMDS init fails; with IMDS
// coming up 10 s after init starts, init succeeds.
func imdsTimeouts(t *testing.T, p *pair) {
	p.both(t, func(n *node) error { return n.mockKubelet("1.29.0") })
	p.refuses(t, nil, "nodeadm", "init", "--skip", "run")
	p.nodeadm.cloud.startIMDSLater(t)
	p.nodeboot.cloud.startIMDSLater(t)
	p.boots(t, nil, "nodeadm", "init", "--skip", "run")
}

// connectionTimeout retells aws-api-connection-timeout: the EC2 endpoint
// never answers a connection. With AWS_MAX_ATTEMPTS=1 both give up; with
// the default attempts both must still be trying after the four 30 s
// connection timeouts nodeadm's run.sh waits (nodeboot's budget for an
// unreachable endpoint is five minutes, docs/failure-bounds.md).
func connectionTimeout(t *testing.T, p *pair) {
	p.both(t, func(n *node) error { return n.mockKubelet("1.29.0") })
	p.refuses(t, []string{"AWS_MAX_ATTEMPTS=1"}, "nodeadm", "init", "--development", "--skip", "run", "--config-source", "file://config.yaml")
	const persist = 4 * 30 * time.Second
	ctx, cancel := context.WithTimeout(t.Context(), persist)
	defer cancel()
	var wg sync.WaitGroup
	for _, n := range []*node{p.nodeadm, p.nodeboot} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := n.run(ctx, nil, "nodeadm", "init", "--development", "--skip", "run", "--config-source", "file://config.yaml")
			if ctx.Err() == nil {
				t.Errorf("%s gave up on an unreachable EC2 endpoint before %s:\n%s", n.agent.name, persist, res)
			}
		}()
	}
	wg.Wait()
	p.stats.runs(2)
}

// httpProxy retells nodeadm-http-proxy: the proxy the user data sets for
// every service must carry exactly one EC2 request per phase.
func httpProxy(t *testing.T, p *pair) {
	p.both(t, func(n *node) error { return n.mockKubelet("1.34.0") })
	for _, phase := range []struct {
		args     []string
		expected string
	}{
		{[]string{"init", "--skip", "run"}, "expected-nodeadm-config-traffic.log"},
		{[]string{"init", "--skip", "config"}, "expected-nodeadm-run-traffic.log"},
		{[]string{"init"}, "expected-nodeadm-traffic.log"},
	} {
		p.nodeadm.cloud.proxy.reset()
		o := p.boots(t, nil, append([]string{"nodeadm"}, phase.args...)...)
		want, err := os.ReadFile(p.caseFile(phase.expected))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []*node{p.nodeadm, p.nodeboot} {
			wantHere := strings.TrimSpace(strings.ReplaceAll(string(want), "http://0.0.0.0:5000/", n.cloud.ec2+"/"))
			got := n.cloud.proxy.requestsTo(n.cloud.ec2)
			if n == p.nodeadm {
				// On a loaded machine nodeadm's SDK sometimes retries a
				// request the stub answered late; its run.sh counts on an
				// idle container. nodeboot's count stays exact.
				got = collapseRepeats(got)
			}
			if got != wantHere {
				run := o.nodeadm
				if n == p.nodeboot {
					run = o.nodeboot
				}
				t.Errorf("nodeadm %s: %s's requests through the proxy:\n%s\nwant (%s):\n%s\n%s's run (an SDK retry shows in its log):\n%s",
					strings.Join(phase.args, " "), n.agent.name, got, phase.expected, wantHere, n.agent.name, run)
			}
		}
	}
}

// collapseRepeats keeps one of each run of identical consecutive lines.
func collapseRepeats(lines string) string {
	var out []string
	for _, l := range strings.Split(lines, "\n") {
		if len(out) == 0 || out[len(out)-1] != l {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
