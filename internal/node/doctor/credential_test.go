package doctor

import (
	"crypto/tls"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/cmdrun"
	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
	"github.com/nodeboot/nodeboot/internal/testing/pkitest"
)

func TestCredentialVerdict(t *testing.T) {
	now := time.Now()
	ca := pkitest.NewCA(t, "cluster-ca")
	cert := ca.Issue(t, pkitest.Spec{CN: "system:node:n1", Usage: 2}).Cert
	old := ca.Issue(t, pkitest.Spec{CN: "system:node:n1", NotBefore: now.Add(-48 * time.Hour), NotAfter: now.Add(-time.Hour)}).Cert
	aws := Connection{Kubeconfig: "/var/lib/kubelet/kubeconfig", User: kubeapi.User{Exec: &kubeapi.ExecConfig{Command: "aws"}}}
	run := &kubeapi.ExecRun{Command: "aws eks get-token --cluster-name c --region r", ExitCode: 255, Stderr: "Unable to locate credentials. You can configure credentials by running \"aws configure\"."}
	checkVerdicts(t, CheckCredential, []verdictCase{
		{name: "exec plugin token", got: credentialVerdict(CredentialEvidence{Conn: aws, Credential: kubeapi.Credential{Source: "exec aws", Token: "k8s-aws-v1.x",
			Expiry: now.Add(14 * time.Minute), Exec: &kubeapi.ExecRun{Command: "aws eks get-token", Duration: time.Second}}}, now),
			verdict: OK, summary: []string{"bearer token", "exec aws", "valid until"}, evidence: []string{"exit code 0"}},
		{name: "plugin fails; its stderr is shown", got: credentialVerdict(CredentialEvidence{Conn: aws, Credential: kubeapi.Credential{Source: "exec aws", Exec: run},
			Err: fmt.Errorf("%w: aws exited with code 255", kubeapi.ErrExecPlugin)}, now),
			verdict: Fail, summary: []string{"no credential", "255"}, evidence: []string{"Unable to locate credentials", "exit code 255"}},
		{name: "plugin not installed", got: credentialVerdict(CredentialEvidence{Conn: aws, Err: fmt.Errorf("%w: %w", kubeapi.ErrExecPlugin, notInstalled("aws"))}, now),
			verdict: Fail, summary: []string{"aws is not installed"}},
		{name: "plugin hangs", got: credentialVerdict(CredentialEvidence{Conn: aws, Err: fmt.Errorf("%w: aws: %w", kubeapi.ErrExecPlugin, cmdrun.ErrTimeout)}, now),
			verdict: Fail, summary: []string{"did not finish"}},
		{name: "no credential in the kubeconfig", got: credentialVerdict(CredentialEvidence{Conn: Connection{Kubeconfig: "/k"}, Err: kubeapi.ErrNoCredential}, now),
			verdict: Fail, summary: []string{"has no credential"}},
		{name: "client certificate", got: credentialVerdict(CredentialEvidence{Conn: Connection{Kubeconfig: "/k"},
			Credential: kubeapi.Credential{Source: "client certificate /pki/current.pem", Certificate: &tls.Certificate{Leaf: cert}, Expiry: cert.NotAfter}}, now),
			verdict: OK, summary: []string{"CN=system:node:n1"}},
		{name: "expired client certificate", got: credentialVerdict(CredentialEvidence{Conn: Connection{Kubeconfig: "/k"},
			Credential: kubeapi.Credential{Source: "client certificate /pki/current.pem", Certificate: &tls.Certificate{Leaf: old}, Expiry: old.NotAfter}}, now),
			verdict: Fail, summary: []string{"expired at"}},
		{name: "bootstrap token before TLS bootstrap", got: credentialVerdict(CredentialEvidence{Conn: Connection{Kubeconfig: "/var/lib/kubelet/bootstrap-kubeconfig", Bootstrap: true},
			Credential: kubeapi.Credential{Source: "token", Token: "abcdef.0123456789abcdef"}}, now),
			verdict: OK, summary: []string{"bearer token (23 characters) from token"}, evidence: []string{"not finished TLS bootstrap"}},
		{name: "unreadable certificate", got: credentialVerdict(CredentialEvidence{Conn: Connection{Kubeconfig: "/k"}, Err: errors.New("read client certificate: no such file")}, now),
			verdict: Fail, summary: []string{"cannot load"}},
		{name: "no kubeconfig", got: credentialVerdict(CredentialEvidence{Conn: Connection{Err: errors.New("no kubeconfig")}}, now),
			verdict: Skipped, summary: []string{"no kubeconfig"}},
	})
}
