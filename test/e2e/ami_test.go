//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// amiVersionFiles are written at AMI build time by the AL2023 EKS AMI
// (amazon-eks-ami PR #1991) so that the agent does not have to exec the
// binaries on the boot path; they hold the `--version` output.
var amiVersionFiles = map[string][]string{
	"/etc/eks/kubelet-version.txt":    {"kubelet", "--version"},
	"/etc/eks/containerd-version.txt": {"containerd", "--version"},
}

// amiFiles returns the AMI-build files this machine's binaries imply,
// keyed by node path. kubeletBin is the kubelet the suite runs.
func amiFiles(ctx context.Context, kubeletBin string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for path, argv := range amiVersionFiles {
		bin := argv[0]
		if bin == "kubelet" {
			bin = kubeletBin
		}
		v, err := exec.CommandContext(ctx, bin, argv[1:]...).Output()
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", bin, strings.Join(argv[1:], " "), err)
		}
		out[path] = v
	}
	return out, nil
}

// writeFilesUnder writes files (node path → content) under root.
func writeFilesUnder(root string, files map[string][]byte) error {
	for path, data := range files {
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// eksGetTokenArgs are the arguments the rendered kubeconfig gives `aws`.
var eksGetTokenArgs = []string{"eks", "get-token", "--cluster-name", clusterName, "--region", region}

// newAWSShim writes the test `aws` printing token into a scratch directory
// of its own (removed when the test ends) and returns the directory and
// its call log.
func newAWSShim(t *testing.T, workDir, name, token string) (dir, callLog string) {
	t.Helper()
	dir = filepath.Join(workDir, "shims-"+name)
	callLog = filepath.Join(dir, "aws-calls.log")
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := writeAWSShim(dir, callLog, token, eksGetTokenArgs); err != nil {
		t.Fatal(err)
	}
	return dir, callLog
}

// writeAWSShim writes dir/aws, the test stand-in for the AWS CLI a real
// AMI ships: `aws eks get-token --cluster-name N --region R` prints an
// ExecCredential whose token the API server's static token file maps to
// system:node:<name> in group system:nodes (what the EKS authenticator
// does for the node's IAM role). Every call is appended to logPath, and
// any other invocation fails, so wrong arguments in the rendered
// kubeconfig break authentication like they would on EKS.
func writeAWSShim(dir, logPath, token string, wantArgs []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	script := fmt.Sprintf(`#!/bin/sh
# Test stand-in for the AWS CLI (nodeboot e2e).
echo "$*" >> %q
if [ "$*" != %q ]; then
  echo "aws (e2e stand-in): unexpected arguments: $*" >&2
  exit 2
fi
exp=$(date -u -d '+14 minutes' +%%Y-%%m-%%dT%%H:%%M:%%SZ)
printf '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","spec":{},"status":{"expirationTimestamp":"%%s","token":"%%s"}}\n' "$exp" %q
`, logPath, strings.Join(wantArgs, " "), token)
	return os.WriteFile(filepath.Join(dir, "aws"), []byte(script), 0o755)
}
