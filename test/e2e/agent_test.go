//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/testing/awstest"
	"github.com/nodeboot/nodeboot/internal/testing/gobuild"
)

// nodebootAgent runs `nodeboot init --skip run` the way cloud-init would
// on EC2, against the local IMDS and EC2 endpoints.
type nodebootAgent struct {
	bin string
	env []string
	// imdsURL is the instance's metadata service (the AEMM process).
	imdsURL string
	// ec2 is the EC2 API the agent talks to.
	ec2 *awstest.EC2
	// eks, when set, is the EKS API the agent discovers the cluster from;
	// its faults are queued before every run.
	eks *eksAPI
}

func (a nodebootAgent) name() string { return "nodeboot init" }

// render runs the agent with --root root; the duration is the process's
// wall time (start → every file written → exit).
func (a nodebootAgent) render(ctx context.Context, root string) (agentResult, error) {
	cmd := exec.CommandContext(ctx, a.bin, "init", "--verbose", "--config-source", "imds://user-data", "--skip", "run", "--root", root)
	cmd.Env = append(os.Environ(), a.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var eksMark, eksCalls int
	if a.eks != nil {
		a.eks.armFaults()
		eksMark, eksCalls = a.eks.mark(), a.eks.stub.Calls(awstest.ActionDescribeCluster)
	}
	start := time.Now()
	err := cmd.Run()
	res := agentResult{took: time.Since(start), output: strings.TrimSpace(stdout.String() + stderr.String())}
	if a.eks != nil {
		res.eks = a.eks.since(eksMark)
		res.describeClusterCalls = a.eks.stub.Calls(awstest.ActionDescribeCluster) - eksCalls
	}
	if err != nil {
		return res, fmt.Errorf("%s: %w\noutput:\n%s", strings.Join(cmd.Args, " "), err, res.output)
	}
	return res, nil
}

// buildBinary builds a command of this module into dir like `make build`
// does (-tags celexec) and returns its path. The Go build cache keeps
// repeated runs fast.
func buildBinary(t *testing.T, repo, dir, pkg string) string {
	t.Helper()
	out := filepath.Join(dir, filepath.Base(pkg))
	start := time.Now()
	if err := gobuild.Build(t.Context(), repo, out, pkg, "celexec"); err != nil {
		t.Fatal(err)
	}
	t.Logf("built %s in %s", pkg, time.Since(start).Round(time.Millisecond))
	return out
}

// kubeletEnv is the kubelet service's environment on this instance: the
// AMI's PATH (set by startKubelet) and what makes the AWS CLI that its
// kubeconfig runs find the instance's IMDS and nothing else.
func (a nodebootAgent) kubeletEnv(env suiteEnv) []string {
	return nodeAWSEnv(a.imdsURL, filepath.Join(env.workDir, "no-aws"))
}
