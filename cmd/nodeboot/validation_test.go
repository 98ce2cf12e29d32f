package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// TestCheckFindsWhatInitRejects runs config check and init on configs that
// init used to refuse only while rendering, one problem at a time: check
// must find them all, with their lines, and init must stop on the same
// problems before any lookup.
func TestCheckFindsWhatInitRejects(t *testing.T) {
	awstest.IsolateEnv(t)
	env := []string{"AWS_EC2_METADATA_SERVICE_ENDPOINT=http://127.0.0.1:9", "AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE=IPv4"}
	userData := `apiVersion: nodeboot.io/v1alpha1
kind: NodeConfig
spec:
  cluster:
    name: my-cluster
    cidr: 10.100.0.0/29
  containerd:
    config: |
      version = 1
  kubelet:
    maxPodsExpression: "[` + strings.Repeat("1,", 59) + `1].map(a, [` + strings.Repeat("1,", 59) + `1].map(b, [` + strings.Repeat("1,", 59) + `1].map(c, a))).size()"
    flags:
    - --node-labels=a=b\\c
    - "--node-labels=x=y\u00a0"
    - --node-labels=node-role.kubernetes.io/worker=
    - --register-with-taints=dedicated=gpu
    - --hostname-override=My_Node
`
	root := t.TempDir()
	fakeMachine(t, root)
	if err := os.WriteFile(filepath.Join(root, "user-data"), []byte(userData), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"line 6:11: spec.cluster.cidr: Invalid value: \"10.100.0.0/29\": has no room for the cluster DNS address",
		"line 8:13: spec.containerd.config: Invalid value: containerd.config declares version = 1",
		"line 11:24: spec.kubelet.maxPodsExpression: Invalid value:",
		"line 13:7: spec.kubelet.flags[0]: Invalid value: \"--node-labels=a=b\\\\c\": contains '\\\\'",
		"line 14:7: spec.kubelet.flags[1]: Invalid value: \"--node-labels=x=y\\u00a0\": contains a blank (U+00A0)",
		"line 15:7: spec.kubelet.flags[2]: Invalid value: \"--node-labels=node-role.kubernetes.io/worker=\": node label node-role.kubernetes.io/worker is in the kubernetes.io/k8s.io namespace",
		"line 16:7: spec.kubelet.flags[3]: Invalid value: \"--register-with-taints=dedicated=gpu\": taint \"dedicated=gpu\" has no effect",
		"line 17:7: spec.kubelet.flags[4]: Invalid value: \"--hostname-override=My_Node\": --hostname-override \"My_Node\" is not a valid node name",
	}
	check := run(t, env, "config", "check", "--root", root, "-c", "file:///user-data")
	if check.code != 1 {
		t.Fatalf("config check: exit %d\n%s", check.code, check.stdout)
	}
	init := run(t, env, "init", "--skip", "run", "--root", root, "-c", "file:///user-data")
	if init.code != 1 {
		t.Fatalf("init: exit %d\n%s", init.code, init.stderr)
	}
	for _, w := range want {
		if !strings.Contains(check.stdout, w) {
			t.Errorf("config check does not report %q:\n%s", w, check.stdout)
		}
		if !strings.Contains(init.stderr, w) {
			t.Errorf("init does not report %q:\n%s", w, init.stderr)
		}
	}
	if !strings.Contains(check.stdout, "configuration is invalid: 8 error(s)") {
		t.Errorf("config check:\n%s", check.stdout)
	}
}
