//go:build oracle

package oracle

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/nodeview"
)

// The retellings below follow each case's run.sh step by step: the same
// environment changes (helpers.sh mocks), the same agent command lines,
// and, on nodeadm's node, the same assertions. After every agent command
// the two nodes are compared (pair.boots, pair.refuses).

func init() {
	simple := func(sha, kubelet string, config string, checks ...nodeadmFile) nodeadmCase {
		return nodeadmCase{runSH: sha, steps: func(t *testing.T, p *pair) {
			p.both(t, func(n *node) error { return n.mockKubelet(kubelet) })
			p.boots(t, nil, "nodeadm", "init", "--skip", "run", "--config-source", "file://"+config)
			p.expectNodeadm(t, checks...)
		}}
	}
	cases["config-check"] = nodeadmCase{runSH: "eff66b65d932a3ec", steps: func(t *testing.T, p *pair) {
		p.both(t, func(n *node) error { return n.mockKubelet("1.31.0") })
		p.checks(t, "nodeadm", "config", "check", "--config-source", "file://config-good.yaml")
		p.refuses(t, nil, "nodeadm", "config", "check", "--config-source", "file://config-bad.yaml")
	}}
	cases["config-provider-chain"] = nodeadmCase{runSH: "7226614b88eecc08", steps: func(t *testing.T, p *pair) {
		p.both(t, func(n *node) error { return n.mockKubelet("1.31.0") })
		p.both(t, func(n *node) error { return os.MkdirAll(n.root.Path("/tmp/config-dir"), 0o755) })
		p.boots(t, nil, "nodeadm", "init", "--skip", "run", "--config-source", "file://config.yaml", "--config-source", "file:///tmp/config-dir")
		p.both(t, func(n *node) error { return copyNodeFile(n, caseDir+"/config.yaml", "/tmp/config-dir/config.yaml") })
		p.boots(t, nil, "nodeadm", "init", "--skip", "run", "--config-source", "file:///tmp/config-dir")
		p.boots(t, nil, "nodeadm", "init", "--skip", "run", "--config-source", "file://config.yaml", "--config-source", "file:///tmp/config-dir")
	}}
	cases["config-cache"] = nodeadmCase{runSH: "ebb56cc88adb1da6", steps: configCache}
	cases["image-credential-provider"] = simple("19e64697aee4bfe2", "1.32.0", "config.yaml",
		nodeadmFile{"json", "/etc/eks/image-credential-provider/config.json", "expected-image-credential-provider-config.json"})
	cases["kubeconfig"] = nodeadmCase{runSH: "89fa5606de0c9330", steps: func(t *testing.T, p *pair) {
		for _, v := range []string{"1.29.0", "1.35.0"} {
			p.both(t, func(n *node) error { return n.mockKubelet(v) })
			p.boots(t, nil, "nodeadm", "init", "--skip", "run", "--config-source", "file://config.yaml")
			p.expectNodeadm(t, nodeadmFile{"bytes", "/var/lib/kubelet/kubeconfig", "expected-kubeconfig.yaml"})
		}
	}}
	cases["kubeconfig-outpost"] = simple("0d78cd61471b3116", "1.35.0", "config.yaml",
		nodeadmFile{"contains", "/etc/hosts", "127.0.0.1\tlocalhost"}, nodeadmFile{"contains", "/etc/hosts", "::1\tlocalhost"})
	cases["kubelet-config-dir"] = nodeadmCase{runSH: "1767d9ee71ee83f1", steps: func(t *testing.T, p *pair) {
		p.both(t, func(n *node) error { return n.mockKubelet("1.29.0") })
		for _, config := range caseFiles(t, p, "config.*") {
			p.boots(t, nil, "nodeadm", "init", "--skip", "run", "--config-source", "file://"+config)
			p.expectNodeadm(t, nodeadmFile{"json", "/etc/kubernetes/kubelet/config.json", "expected-kubelet-config.json"},
				nodeadmFile{"json", "/etc/kubernetes/kubelet/config.json.d/40-nodeadm.conf", "expected-kubelet-config-drop-in.json"})
		}
	}}
	cases["kubelet-config-new-instance-type"] = nodeadmCase{runSH: "51c19dcf968970fe",
		aemm: func(t testing.TB, c map[string]any) {
			c["metadata"].(map[string]any)["values"].(map[string]any)["instance-type"] = "mock-type.large"
			c["dynamic"].(map[string]any)["values"].(map[string]any)["instance-identity-document"].(map[string]any)["instanceType"] = "mock-type.large"
		},
		steps: func(t *testing.T, p *pair) {
			p.both(t, func(n *node) error { return n.mockKubelet("1.35.0") })
			for _, config := range caseFiles(t, p, "config.*") {
				p.boots(t, nil, "nodeadm", "init", "--skip", "run", "--config-source", "file://"+config)
				p.expectNodeadm(t, nodeadmFile{"json", "/etc/kubernetes/kubelet/config.json", "expected-kubelet-config.json"},
					nodeadmFile{"json", "/etc/kubernetes/kubelet/config.json.d/40-nodeadm.conf", "expected-kubelet-config-drop-in.json"})
			}
		}}
	cases["kubelet-config-set-empty"] = simple("35623086bcf0fcc1", "1.35.0", "config.yaml",
		nodeadmFile{"json", "/etc/kubernetes/kubelet/config.json", "expected-kubelet-config.json"},
		nodeadmFile{"json", "/etc/kubernetes/kubelet/config.json.d/40-nodeadm.conf", "expected-kubelet-config-drop-in.json"},
		nodeadmFile{"contains", "/etc/eks/kubelet/environment", "--hostname-override=ip.*ec2.internal"})
	cases["kubelet-flags"] = simple("019fd8753cf3c095", "1.35.0", "config.yaml",
		nodeadmFile{"contains", "/etc/eks/kubelet/environment", "--v=5 --node-labels=foo=bar,foo2=baz --register-with-taints=foo=bar:NoSchedule$"},
		nodeadmFile{"contains", "/etc/eks/kubelet/environment", "--hostname-override=i-1234567890abcdef0"})
	cases["kubelet-version"] = simple("5305ecdcff8398d6", "1.35.0-eks-5e0fdde", "config.yaml",
		nodeadmFile{"not-contains", "/etc/kubernetes/kubelet/config.json", `"kubeAPIQPS"`},
		nodeadmFile{"not-contains", "/etc/kubernetes/kubelet/config.json", `"kubeAPIBurst"`})
	cases["mime-userdata-merge"] = simple("79fdafa7e082cfa5", "1.35.0", "config.yaml",
		nodeadmFile{"json", "/etc/kubernetes/kubelet/config.json", "expected-kubelet-config.json"},
		nodeadmFile{"json", "/etc/kubernetes/kubelet/config.json.d/40-nodeadm.conf", "expected-kubelet-config-drop-in.json"})
	cases["network-name-resolution"] = simple("382c439b8cba119d", "1.31.0", "config.yaml",
		nodeadmFile{"bytes", "/run/systemd/resolved.conf.d/40-eks.conf", "expected-resolved.conf"})
	cases["pod-infra-container"] = simple("cd43a49e923757f3", "1.35.0", "config.yaml",
		nodeadmFile{"not-contains", "/etc/eks/kubelet/environment", "pod-infra-container-image"})
	cases["custom-max-pods-expression"] = nodeadmCase{runSH: "6067ee917046dd12", steps: func(t *testing.T, p *pair) {
		p.both(t, func(n *node) error { return n.mockKubelet("1.32.0") })
		for _, scenario := range caseFiles(t, p, "scenarios/*") {
			p.boots(t, nil, "nodeadm", "init", "--skip", "run", "--config-source", "file://"+scenario+"/config.yaml")
			p.expectNodeadm(t, nodeadmFile{"json", "/etc/kubernetes/kubelet/config.json", scenario + "/expected.json"})
			// run.sh's drop-in assertion tests a path under the scenario
			// directory that never exists, so it never runs; neither here.
		}
	}}
	cases["nodeadm-environment-config"] = nodeadmCase{runSH: "ae9bcc6eaf0f63db", steps: environmentConfig}
}

// environmentConfig retells nodeadm-environment-config: six inputs, the
// environment files each leaves, the files removed between them.
func environmentConfig(t *testing.T, p *pair) {
	p.both(t, func(n *node) error { return n.mockKubelet("1.34.0") })
	const (
		defaults   = "/etc/systemd/system.conf.d/environment.conf"
		kubelet    = "/etc/systemd/system/kubelet.service.d/environment.conf"
		containerd = "/etc/systemd/system/containerd.service.d/environment.conf"
	)
	clean := func() {
		p.both(t, func(n *node) error {
			for _, f := range []string{defaults, kubelet, containerd} {
				if err := n.remove(f); err != nil {
					return err
				}
			}
			return nil
		})
	}
	initWith := func(config string) {
		p.boots(t, nil, "nodeadm", "init", "--skip", "run", "--config-source", "file://"+config)
	}
	initWith("config-basic-env.yaml")
	p.expectNodeadm(t, nodeadmFile{"bytes", defaults, "expected-config-basic-env.conf"})
	initWith("config-quote-escaping.yaml")
	p.expectNodeadm(t, nodeadmFile{"bytes", defaults, "expected-config-quote-escaping.conf"})
	initWith("config-service-specific.yaml")
	p.expectNodeadm(t, nodeadmFile{"bytes", defaults, "expected-config-service-specific-default.conf"},
		nodeadmFile{"bytes", kubelet, "expected-config-service-specific-kubelet.conf"},
		nodeadmFile{"bytes", containerd, "expected-config-service-specific-containerd.conf"})
	clean()
	initWith("config-service-only.yaml")
	p.expectNodeadm(t, nodeadmFile{"absent", defaults, ""},
		nodeadmFile{"bytes", kubelet, "expected-config-service-only-kubelet.conf"},
		nodeadmFile{"bytes", containerd, "expected-config-service-only-containerd.conf"})
	for _, config := range []string{"config-no-env.yaml", "config-empty-env.yaml"} {
		clean()
		initWith(config)
		p.expectNodeadm(t, nodeadmFile{"absent", defaults, ""}, nodeadmFile{"absent", kubelet, ""}, nodeadmFile{"absent", containerd, ""})
	}
}

// configCache retells config-cache: the cache written, reused under
// --skip config, a drop-in alone refused, user data plus the drop-in
// re-running the config phase, and an empty chain falling back to the
// cache.
func configCache(t *testing.T, p *pair) {
	const cache = "/run/eks/nodeadm/config.json"
	p.both(t, func(n *node) error { return n.mockKubelet("1.31.0") })
	p.boots(t, nil, "nodeadm", "init", "--skip", "run", "--config-cache", cache)
	p.expectNodeadm(t, nodeadmFile{"spec", cache, "cached-config-1.json"})
	p.compareCacheSpec(t)
	p.boots(t, nil, "nodeadm", "init", "--skip", "config", "--skip", "run", "--config-cache", cache)
	p.expectNodeadm(t, nodeadmFile{"spec", cache, "cached-config-1.json"})
	dropIn := heredoc(t, p, "/etc/eks/nodeadm.d/test.yaml")
	p.both(t, func(n *node) error { return n.write("/etc/eks/nodeadm.d/test.yaml", dropIn, 0o644) })
	p.refuses(t, nil, "nodeadm", "init", "--skip", "config", "--skip", "run", "--config-source", "file:///etc/eks/nodeadm.d", "--config-cache", cache)
	p.boots(t, nil, "nodeadm", "init", "--skip", "config", "--skip", "run", "--config-source", "imds://user-data", "--config-source", "file:///etc/eks/nodeadm.d", "--config-cache", cache)
	p.expectNodeadm(t, nodeadmFile{"spec", cache, "cached-config-2.json"})
	p.compareCacheSpec(t)
	p.both(t, func(n *node) error { return n.remove("/etc/eks/nodeadm.d/*") })
	p.boots(t, nil, "nodeadm", "init", "--skip", "config", "--skip", "run", "--config-source", "file:///etc/eks/nodeadm.d", "--config-cache", cache)
}

// checks runs a `config check` run.sh expects to pass.
func (p *pair) checks(t *testing.T, args ...string) {
	t.Helper()
	o := p.run(t, nil, args...)
	if o.nodeadm.code != 0 {
		t.Fatalf("nodeadm's config check failed where its run.sh expects success (harness problem):\n%s", o.nodeadm)
	}
	if o.nodeboot.code == 0 {
		return
	}
	d := nodeview.Difference{Path: "exit.config-check", A: "0", B: o.nodeboot.stdout}
	if e := explain(d, p.name); e != nil {
		p.stats.explained(e.id)
		return
	}
	t.Errorf("nodeadm's config check passes, nodeboot's does not:\n%s", o.nodeboot)
}

// caseFiles lists files of the case matching a glob, relative to it.
func caseFiles(t *testing.T, p *pair, glob string) []string {
	matches, err := filepath.Glob(filepath.Join(p.src, glob))
	if err != nil || len(matches) == 0 {
		t.Fatalf("case files %s: %v", glob, err)
	}
	var rel []string
	for _, m := range matches {
		r, _ := filepath.Rel(p.src, m)
		rel = append(rel, r)
	}
	sort.Strings(rel)
	return rel
}

func copyNodeFile(n *node, from, to string) error {
	b, err := os.ReadFile(n.root.Path(from))
	if err != nil {
		return err
	}
	return n.write(to, string(b), 0o644)
}

// heredoc returns the text run.sh writes to path with `cat << EOF > path`:
// inputs a script writes are read from the script, not retold.
func heredoc(t *testing.T, p *pair, path string) string {
	t.Helper()
	data, err := os.ReadFile(p.caseFile("run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	start := "cat << EOF > " + path + "\n"
	_, rest, ok := strings.Cut(string(data), start)
	body, _, ok2 := strings.Cut(rest, "\nEOF\n")
	if !ok || !ok2 {
		t.Fatalf("run.sh writes no %s with a heredoc", path)
	}
	return body + "\n"
}
