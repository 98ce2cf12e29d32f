package main

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/aemmtest"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

const casesDir = "../../internal/node/agent/testdata/cases/"

func TestConvertRoundTripsThroughConfigCheck(t *testing.T) {
	for _, tc := range []struct{ name, input, to, want string }{
		{"al2 to nodeconfig", "al2-mng-mime", "nodeconfig", "Content-Type: application/node.eks.aws"},
		{"bottlerocket to nodeconfig", "bottlerocket-table", "nodeconfig", "apiVersion: nodeboot.io/v1alpha1"},
		{"nodeconfig to bootstrap-sh", "minimal", "bootstrap-sh", "/etc/eks/bootstrap.sh my-cluster"},
		{"nodeconfig to bottlerocket", "minimal", "bottlerocket", "[settings.kubernetes]"},
		{"nodeconfig to windows", "minimal", "windows", "<powershell>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, nil, "convert", "--to", tc.to, casesDir+tc.input+"/user-data")
			if res.code != 0 || !strings.Contains(res.stdout, tc.want) {
				t.Fatalf("exit %d, output lacks %q\n%s\n%s", res.code, tc.want, res.stdout, res.stderr)
			}
			if tc.to == "windows" {
				return
			}
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "converted"), []byte(res.stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			check := run(t, nil, "config", "check", "--root", root, "-c", "file:///converted")
			if check.code != 0 {
				t.Fatalf("converted user data does not pass config check:\n%s%s", check.stdout, check.stderr)
			}
		})
	}
}

func TestConvertReportsProblemsAndStrictness(t *testing.T) {
	bad := run(t, nil, "convert", "--to", "nodeconfig", "../../examples/broken.yaml")
	if bad.code != 1 || !strings.Contains(bad.stderr, "spec.cluster.apiServerEndPoint") {
		t.Fatalf("broken input: exit %d\n%s", bad.code, bad.stderr)
	}
	strict := run(t, nil, "convert", "--strict", "--to", "bottlerocket", casesDir+"minimal/user-data")
	if strict.code != 1 || !strings.Contains(strict.stderr, "not expressible in bottlerocket: spec.cluster.cidr") {
		t.Fatalf("strict: exit %d\n%s", strict.code, strict.stderr)
	}
	wrongFrom := run(t, nil, "convert", "--from", "bottlerocket", "--to", "nodeconfig", casesDir+"minimal/user-data")
	if wrongFrom.code != 1 || !strings.Contains(wrongFrom.stderr, "--from bottlerocket") {
		t.Fatalf("--from mismatch: exit %d\n%s", wrongFrom.code, wrongFrom.stderr)
	}
	if res := run(t, nil, "convert", "--to", "rpm", "x"); res.code != 2 {
		t.Fatalf("bad target: exit %d", res.code)
	}
}

// TestBootstrapShEntryPoint runs the /etc/eks/bootstrap.sh replacement the
// way AL2 scripts call it, options from flags and from the environment.
func TestBootstrapShEntryPoint(t *testing.T) {
	awstest.IsolateEnv(t)
	imdsURL := aemmtest.Start(t, aemmtest.Config{})
	ec2 := awstest.NewEC2(t)
	ec2.AddInstance(awstest.Instance{ID: aemmtest.DefaultInstanceID, InstanceType: "m5.large", PrivateDNSName: "ip-10-0-0-5.us-west-2.compute.internal"})
	ca, err := os.ReadFile("../../internal/node/agent/testdata/ca.pem")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	fakeMachine(t, root)
	env := []string{"AWS_EC2_METADATA_SERVICE_ENDPOINT=" + imdsURL, "AWS_ENDPOINT_URL_EC2=" + ec2.URL,
		"KUBELET_EXTRA_ARGS=--node-labels=from=env"}
	res := run(t, env, "bootstrap-sh", "--root", root, "--skip", "run", "--",
		"my-cluster", "--b64-cluster-ca", base64.StdEncoding.EncodeToString(ca),
		"--apiserver-endpoint", "https://example.gr7.us-west-2.eks.amazonaws.com", "--dns-cluster-ip", "10.100.0.10")
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	args := mustRead(t, filepath.Join(root, "etc/eks/kubelet/environment"))
	if !strings.Contains(args, "--node-labels=from=env") {
		t.Fatalf("KUBELET_EXTRA_ARGS from the environment not applied:\n%s", args)
	}
	if kc := mustRead(t, filepath.Join(root, "var/lib/kubelet/kubeconfig")); !strings.Contains(kc, "my-cluster") {
		t.Fatalf("kubeconfig lacks the cluster name:\n%s", kc)
	}
	bad := run(t, env, "bootstrap-sh", "--root", root, "--skip", "run", "--", "my-cluster", "--container-runtime", "dockerd")
	if bad.code != 1 || !strings.Contains(bad.stderr, "dockerd") {
		t.Fatalf("dockerd: exit %d\n%s", bad.code, bad.stderr)
	}
}

// TestConfigDumpSaysWhatEachPartWasReadAs dumps the merged, enriched config
// of AL2 managed-node-group user data served by the real IMDS mock.
func TestConfigDumpSaysWhatEachPartWasReadAs(t *testing.T) {
	awstest.IsolateEnv(t)
	userData, err := os.ReadFile(casesDir + "al2-mng-mime/user-data")
	if err != nil {
		t.Fatal(err)
	}
	imdsURL := aemmtest.Start(t, aemmtest.Config{UserData: userData})
	ec2 := awstest.NewEC2(t)
	ec2.AddInstance(awstest.Instance{ID: aemmtest.DefaultInstanceID, InstanceType: "m5.large", PrivateDNSName: "ip-10-0-0-5.us-west-2.compute.internal"})
	root := t.TempDir()
	fakeMachine(t, root)
	env := []string{"AWS_EC2_METADATA_SERVICE_ENDPOINT=" + imdsURL, "AWS_ENDPOINT_URL_EC2=" + ec2.URL}
	res := run(t, env, "config", "dump", "--root", root)
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.stderr)
	}
	for _, want := range []string{
		"# imds://user-data part 1 (text/x-shellscript): bootstrap.sh (applied)",
		"name: prod-cluster", "privateDnsName: ip-10-0-0-5.us-west-2.compute.internal", "kubeletVersion: v1.34.4",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("dump lacks %q:\n%s", want, res.stdout)
		}
	}
	check := run(t, env, "config", "check", "-o", "json")
	if check.code != 0 || !strings.Contains(check.stdout, `"format": "bootstrap.sh"`) {
		t.Fatalf("check -o json: exit %d\n%s%s", check.code, check.stdout, check.stderr)
	}
}
