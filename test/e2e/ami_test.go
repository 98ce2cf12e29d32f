//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// amiPATH is the PATH of a node's services (systemd's default): `aws` is
// the AWS CLI the AMI ships, here Debian's awscli in /usr/bin
// (install-deps.sh).
const amiPATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// nodeAWSEnv is what makes this machine's AWS CLI behave as on the
// instance: IMDS is the instance's (AEMM, not 169.254.169.254; botocore
// wants the endpoint to end with a slash), and no AWS configuration of the
// machine's own user leaks in.
func nodeAWSEnv(imdsURL, scratch string) []string {
	return []string{
		"AWS_EC2_METADATA_SERVICE_ENDPOINT=" + imdsURL + "/",
		"AWS_CONFIG_FILE=" + filepath.Join(scratch, "no-aws-config"),
		"AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(scratch, "no-aws-credentials"),
	}
}
