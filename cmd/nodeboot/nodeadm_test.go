package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// karpenterUserData is user data the way Karpenter merges a user's
// NodeConfig with its own: a field nodeadm does not know (clusterEndpoint),
// and a label flag with its value in a separate, quoted word.
func karpenterUserData(t *testing.T, apiVersion string) string {
	t.Helper()
	minimal, err := os.ReadFile("../../internal/node/agent/testdata/cases/minimal/user-data")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Replace(string(minimal), "apiVersion: node.eks.aws/v1alpha1", "apiVersion: "+apiVersion, 1)
	doc += "    clusterEndpoint: https://example.gr7.us-west-2.eks.amazonaws.com\n" +
		"  kubelet:\n    flags:\n    - --node-labels \"karpenter.sh/nodepool=default\"\n"
	return "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\n" +
		"Content-Type: application/node.eks.aws\n\n" + doc + "\n--//--\n"
}

// TestBootsWhatNodeadmBoots checks that a node.eks.aws document nodeadm
// accepts (unknown fields dropped, a flag and its value in two words) boots,
// with a warning for the unknown field on the console, while config check
// and init --strict still refuse it, and nodeboot.io documents stay strict.
func TestBootsWhatNodeadmBoots(t *testing.T) {
	awstest.IsolateEnv(t)
	imdsURL := aemmtest.Start(t, aemmtest.Config{})
	ec2 := awstest.NewEC2(t)
	ec2.AddInstance(awstest.Instance{ID: aemmtest.DefaultInstanceID, InstanceType: "m5.large", PrivateDNSName: "ip-10-0-0-5.us-west-2.compute.internal"})
	env := []string{"AWS_EC2_METADATA_SERVICE_ENDPOINT=" + imdsURL, "AWS_ENDPOINT_URL_EC2=" + ec2.URL}
	setup := func(t *testing.T, userData string) string {
		root := t.TempDir()
		fakeMachine(t, root)
		if err := os.WriteFile(filepath.Join(root, "user-data"), []byte(userData), 0o644); err != nil {
			t.Fatal(err)
		}
		return root
	}
	const unknown = `spec.cluster.clusterEndpoint: unknown field "clusterEndpoint"`

	t.Run("node.eks.aws boots with a warning", func(t *testing.T) {
		root := setup(t, karpenterUserData(t, "node.eks.aws/v1alpha1"))
		res := run(t, env, "init", "--skip", "run", "--root", root, "-c", "file:///user-data")
		if res.code != 0 {
			t.Fatalf("init: exit %d\n%s", res.code, res.stderr)
		}
		if !strings.Contains(res.stderr, `level=WARN msg="warning: file:///user-data part 1 (application/node.eks.aws) line 15:5: spec.cluster.clusterEndpoint: unknown field`) ||
			!strings.Contains(res.stderr, "nodeadm ignores it, and so does this boot") {
			t.Errorf("no warning for the unknown field:\n%s", res.stderr)
		}
		args := mustRead(t, filepath.Join(root, "etc/eks/kubelet/environment"))
		if !strings.Contains(args, " --node-labels=karpenter.sh/nodepool=default") {
			t.Errorf("kubelet args lack the label:\n%s", args)
		}
	})
	t.Run("config check and init --strict refuse it", func(t *testing.T) {
		root := setup(t, karpenterUserData(t, "node.eks.aws/v1alpha1"))
		check := run(t, env, "config", "check", "--root", root, "-c", "file:///user-data")
		if check.code != 1 || !strings.Contains(check.stdout, "error: file:///user-data part 1 (application/node.eks.aws) line 15:5: "+unknown) {
			t.Errorf("config check: exit %d\n%s", check.code, check.stdout)
		}
		strict := run(t, env, "init", "--strict", "--skip", "run", "--root", root, "-c", "file:///user-data")
		if strict.code != 1 || !strings.Contains(strict.stderr, unknown) {
			t.Errorf("init --strict: exit %d\n%s", strict.code, strict.stderr)
		}
		if _, err := os.Stat(filepath.Join(root, "etc/eks/kubelet/environment")); err == nil {
			t.Error("init --strict wrote the kubelet environment")
		}
	})
	t.Run("nodeboot.io stays strict", func(t *testing.T) {
		root := setup(t, karpenterUserData(t, "nodeboot.io/v1alpha1"))
		res := run(t, env, "init", "--skip", "run", "--root", root, "-c", "file:///user-data")
		if res.code != 1 || !strings.Contains(res.stderr, unknown) {
			t.Errorf("init: exit %d\n%s", res.code, res.stderr)
		}
	})
}
