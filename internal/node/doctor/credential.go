package doctor

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/cmdrun"
	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
)

// CredentialEvidence is what the kubelet's kubeconfig user yielded.
type CredentialEvidence struct {
	Conn       Connection
	Credential kubeapi.Credential
	Err        error
	// AWSCLI are the requests of an `aws eks get-token` plugin and how
	// the CLI's and the kubelet's proxy rules route them.
	AWSCLI []CLICall
}

// credentialVerdict judges whether the kubelet's credential can be had.
func credentialVerdict(ev CredentialEvidence, now time.Time) Result {
	r := credentialOwnVerdict(ev, now)
	if r.Verdict == Skipped {
		return r
	}
	return awsCLIVerdict(r, ev.AWSCLI)
}

// credentialOwnVerdict judges the credential the kubeconfig yielded.
func credentialOwnVerdict(ev CredentialEvidence, now time.Time) Result {
	r := Result{ID: CheckCredential}
	if ev.Conn.Err != nil {
		r.Verdict, r.Summary = Skipped, "no kubeconfig to take the credential from (see API endpoint)"
		return r
	}
	c := ev.Credential
	if run := c.Exec; run != nil {
		r.Evidence = append(r.Evidence, fmt.Sprintf("ran %s: exit code %d in %s", run.Command, run.ExitCode, ms(run.Duration)))
		if run.Stderr != "" {
			r.Evidence = append(r.Evidence, "its standard error:\n"+indentLines(lastLines(run.Stderr, 10), "  "))
		}
	}
	if ev.Conn.Bootstrap {
		r.Evidence = append(r.Evidence, fmt.Sprintf("%s does not exist yet: the kubelet has not finished TLS bootstrap and uses %s", kubeletKubeconfigName, ev.Conn.Kubeconfig))
	}
	if ev.Err != nil {
		return credentialFailure(r, ev)
	}
	r.Summary = c.String()
	switch {
	case !c.Expiry.IsZero() && !c.Expiry.After(now):
		r.Verdict = Fail
		r.Summary += fmt.Sprintf(", expired at %s", c.Expiry.UTC().Format(time.RFC3339))
		r.Action = "An expired credential is rejected: for a client certificate the kubelet's rotation failed, so remove it and let the kubelet bootstrap again; for a token, check the clock and the plugin."
	case c.Certificate != nil && c.Certificate.Leaf != nil && c.Certificate.Leaf.NotBefore.After(now):
		r.Verdict = Fail
		r.Summary += fmt.Sprintf(", not valid before %s", c.Certificate.Leaf.NotBefore.UTC().Format(time.RFC3339))
		r.Action = "The node's clock is behind the certificate's start: fix the clock (see the clock check)."
	default:
		r.Verdict = OK
		if !c.Expiry.IsZero() {
			r.Summary += fmt.Sprintf(", valid until %s", c.Expiry.UTC().Format(time.RFC3339))
		}
	}
	return r
}

const kubeletKubeconfigName = "the kubelet's kubeconfig"

func credentialFailure(r Result, ev CredentialEvidence) Result {
	r.Verdict = Fail
	user := ev.Conn.User
	switch {
	case errors.Is(ev.Err, cmdrun.ErrNotInstalled):
		r.Summary = fmt.Sprintf("the credential plugin %s is not installed (not on PATH)", user.Exec.Command)
		r.Action = "Install the plugin the kubeconfig names (the AWS CLI for `aws eks get-token`) or set spec.identity.exec.command to where it is."
	case errors.Is(ev.Err, cmdrun.ErrTimeout):
		r.Summary = fmt.Sprintf("the credential plugin %s did not finish: %v", user.Exec.Command, ev.Err)
		r.Action = "The plugin hangs, often on its own network calls (STS, IMDS for the instance role): run it by hand with the arguments shown."
	case errors.Is(ev.Err, kubeapi.ErrExecPlugin):
		r.Summary = "the credential plugin gave no credential: " + ev.Err.Error()
		r.Action = "Run the command shown by hand: for `aws eks get-token` the instance needs its IAM role (instance profile) and a reachable STS endpoint; its standard error is above."
	case errors.Is(ev.Err, kubeapi.ErrNoCredential):
		r.Summary = "the kubeconfig user " + ev.Conn.Kubeconfig + " has no credential"
		r.Action = "Set spec.identity (an exec plugin or a bootstrap token) and run `nodeboot init` again."
	default:
		r.Summary = "cannot load the kubelet's credential: " + ev.Err.Error()
		r.Action = "The kubelet's certificate or token file is missing or damaged: remove it and let the kubelet bootstrap again, or run `nodeboot init` again."
	}
	return r
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func indentLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
