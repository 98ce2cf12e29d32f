package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// TestInitDeadlineNamesTheDependency: with an IMDS that accepts and never
// answers, init gives up at its --timeout and says what it was waiting for.
func TestInitDeadlineNamesTheDependency(t *testing.T) {
	awstest.IsolateEnv(t)
	imds := awstest.NewIMDS(t)
	imds.Hang(awstest.PathToken)
	root := t.TempDir()
	fakeMachine(t, root)
	env := []string{"AWS_EC2_METADATA_SERVICE_ENDPOINT=" + imds.URL}
	res, err := awstest.Within(t, func() (result, error) {
		return run(t, env, "init", "--skip", "run", "--root", root, "--timeout", "2s"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	for _, want := range []string{"init did not finish within --timeout 2s", "imds "} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("message lacks %q:\n%s", want, res.stderr)
		}
	}
}

// TestBootstrapShRefusesARejectedNode: when the config phase rejected this
// boot's user data, the bootstrap.sh entry point does not configure and
// start the node from the script's arguments alone, and says why.
func TestBootstrapShRefusesARejectedNode(t *testing.T) {
	awstest.IsolateEnv(t)
	root := t.TempDir()
	fakeMachine(t, root)
	const reason = "imds://user-data (part 1, application/node.eks.aws) line 7: spec.kubelet.flags[0]: invalid"
	note := filepath.Join(root, "run/nodeboot/config-rejected")
	if err := os.MkdirAll(filepath.Dir(note), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(note, []byte(reason+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := treeExcept(t, root, "")
	res := run(t, nil, "bootstrap-sh", "--root", root, "--skip", "run", "--",
		"my-cluster", "--apiserver-endpoint", "https://example.gr7.us-west-2.eks.amazonaws.com", "--dns-cluster-ip", "10.100.0.10")
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", res.code, res.stderr)
	}
	for _, want := range []string{reason, "rejected at boot", "/run/nodeboot/config-rejected"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("message lacks %q:\n%s", want, res.stderr)
		}
	}
	if after := treeExcept(t, root, ""); strings.Join(after, " ") != strings.Join(before, " ") {
		t.Errorf("files written for a rejected node:\nbefore %v\nafter  %v", before, after)
	}
}
