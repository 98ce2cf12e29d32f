package nodeview

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMergePatch(t *testing.T) {
	for _, tc := range []struct {
		name                string
		target, patch, want string
	}{
		{"objects merge key by key", `{"a":{"b":1,"c":2}}`, `{"a":{"c":3}}`, `{"a":{"b":1,"c":3}}`},
		{"lists are replaced", `{"dns":["1","2"]}`, `{"dns":["3"]}`, `{"dns":["3"]}`},
		{"null removes", `{"a":1,"b":2}`, `{"a":null}`, `{"b":2}`},
		{"new keys are added", `{}`, `{"x":{"y":true}}`, `{"x":{"y":true}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target, _ := decodeJSONOrYAML(tc.target)
			patch, _ := decodeJSONOrYAML(tc.patch)
			want, _ := decodeJSONOrYAML(tc.want)
			if got := canonical(MergePatch(target, patch)); got != canonical(want) {
				t.Fatalf("got %s, want %s", got, canonical(want))
			}
		})
	}
}

func TestEqualLeaf(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{`"2m0s"`, `"2m"`, true},
		{`"1Gi"`, `"1024Mi"`, true},
		{`"100Mi"`, `"101Mi"`, false},
		{`58`, `58`, true},
		{`"58"`, `58`, false},
		{`"localhost/kubernetes/pause"`, `"localhost/kubernetes/pause:latest"`, false},
	} {
		if got := equalLeaf(tc.a, tc.b); got != tc.want {
			t.Errorf("equalLeaf(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestReadKubelet reads a node whose kubelet flags, base config and
// drop-ins all set maxPods: the flag wins, then the last drop-in; repeated
// --node-labels (one spelled with an underscore) add up.
func TestReadKubelet(t *testing.T) {
	root := t.TempDir()
	write := func(p, data string) {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(KubeletEnvFile, "NODEADM_KUBELET_ARGS=--config=/k/config.json --config-dir=/k/d --kubeconfig=/k/kc --node-labels=a=b --node_labels=c=d --max-pods=40\n")
	write("/k/config.json", `{"maxPods":10,"clusterDNS":["10.0.0.10"],"authentication":{"x509":{"clientCAFile":"/ca"}}}`)
	const tm = `"kind":"KubeletConfiguration","apiVersion":"kubelet.config.k8s.io/v1beta1",`
	write("/k/d/10-a.conf", `{`+tm+`"maxPods":20,"clusterDNS":["1.1.1.1"]}`)
	write("/k/d/20-b.conf", `{`+tm+`"maxPods":30}`)
	write("/k/d/ignored.json", `{"maxPods":99}`)
	write("/k/kc", "clusters:\n- name: k\n  cluster:\n    certificate-authority: /ca\n")
	write("/ca", "PEM")
	write("/etc/other", "x")
	v, err := Read(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"kubelet.config.maxPods":                                  `40`,
		"kubelet.config.clusterDNS":                               `["1.1.1.1"]`,
		"kubelet.flag.node-labels":                                `{"a":"b","c":"d"}`,
		"kubeconfig.clusters[0].certificate-authority@content":    `"PEM"`,
		"kubelet.config.authentication.x509.clientCAFile@content": `"PEM"`,
		"file:/etc/other":                                         `"x"`,
	}
	for k, w := range want {
		if v[k] != w {
			t.Errorf("%s = %s, want %s", k, v[k], w)
		}
	}
	if _, ok := v["file:/k/d/ignored.json"]; !ok {
		t.Errorf("a file the kubelet does not read is not reported: %v", v)
	}
}

func TestNormalizeImageRefs(t *testing.T) {
	v := View{
		"containerd.plugins.cri.sandbox_image":            `"localhost/kubernetes/pause"`,
		"containerd.plugins.images.pinned_images.sandbox": `"registry:5000/pause:3.9"`,
		"containerd.plugins.other.sandbox_image":          `"pause@sha256:abc"`,
		"containerd.plugins.cri.registry.config_path":     `"/etc/containerd/certs.d"`,
	}
	normalizeImageRefs(v)
	for k, want := range map[string]string{
		"containerd.plugins.cri.sandbox_image":            `"localhost/kubernetes/pause:latest"`,
		"containerd.plugins.images.pinned_images.sandbox": `"registry:5000/pause:3.9"`,
		"containerd.plugins.other.sandbox_image":          `"pause@sha256:abc"`,
	} {
		if v[k] != want {
			t.Errorf("%s = %s, want %s", k, v[k], want)
		}
	}
}

func TestReadNetworkd(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "run/systemd/network")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	a := "# comment\n[Match]\nName=eth0\n\n[DHCPv4]\nUseDNS=yes\n[DHCPv4]\nRouteMetric=512\n"
	if err := os.WriteFile(filepath.Join(dir, "70-eks-eth0.network"), []byte(a), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := Read(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := "networkd:/run/systemd/network/70-eks-eth0.network."
	if v[p+"Match.Name"] != `["eth0"]` || v[p+"DHCPv4.RouteMetric"] != `["512"]` || v[p+"DHCPv4.UseDNS"] != `["yes"]` {
		t.Errorf("view = %v", v)
	}
}

// TestOtherJSONFilesCompareAsJSON: a JSON file no reader of the view
// claims (a kubelet config that a user --config no longer names) compares
// by its JSON, not its key order or indentation.
func TestOtherJSONFilesCompareAsJSON(t *testing.T) {
	views := make([]View, 2)
	for i, text := range []string{"{\n    \"a\": 1,\n    \"b\": [2]\n}\n", `{"b":[2],"a":1}`} {
		root := t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, "etc/x"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "etc/x/c.json"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		v, err := Read(root, Options{})
		if err != nil {
			t.Fatal(err)
		}
		views[i] = v
	}
	if d := Diff(views[0], views[1]); len(d) != 0 {
		t.Errorf("differences: %v", d)
	}
}
