package doctor

import (
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/kubeapi"
)

// TestAWSCLIProxyVerdict: the credential check routes `aws eks get-token`'s
// requests by the AWS CLI's Python rules (pyproxy, checked against the
// real botocore by the oracle) and names where they break the credential
// or differ from the kubelet's Go rules.
func TestAWSCLIProxyVerdict(t *testing.T) {
	now := time.Now()
	getToken := &kubeapi.ExecConfig{Command: "/usr/bin/aws", Args: []string{"eks", "get-token", "--cluster-name", "c", "--region", "us-west-2"}}
	roleARN := &kubeapi.ExecConfig{Command: "aws", Args: []string{"eks", "get-token", "--cluster-name", "c", "--role-arn", "arn:aws:iam::1:role/n"}}
	authenticator := &kubeapi.ExecConfig{Command: "aws-iam-authenticator", Args: []string{"token", "-i", "c"}}
	proxies := func(vars ...string) map[string]string {
		env := map[string]string{"HTTP_PROXY": "http://ops:s3cret@proxy.corp:3128", "HTTPS_PROXY": "http://proxy.corp:3128"}
		for i := 0; i+1 < len(vars); i += 2 {
			env[vars[i]] = vars[i+1]
		}
		return env
	}
	token := kubeapi.Credential{Source: "exec aws", Token: "k8s-aws-v1.x", Exec: &kubeapi.ExecRun{Command: "aws eks get-token"}}
	failed := kubeapi.Credential{Source: "exec aws", Exec: &kubeapi.ExecRun{Command: "aws eks get-token", ExitCode: 255, Stderr: "Read timeout on endpoint URL"}}
	verdict := func(exec *kubeapi.ExecConfig, env map[string]string, cred kubeapi.Credential, err error) Result {
		ev := CredentialEvidence{Conn: Connection{Kubeconfig: "/var/lib/kubelet/kubeconfig", User: kubeapi.User{Exec: exec}}, Credential: cred, Err: err,
			AWSCLI: awsCLICalls(exec, env, "us-west-2")}
		return credentialVerdict(ev, now)
	}
	checkVerdicts(t, CheckCredential, []verdictCase{
		{name: "CIDR in NO_PROXY: the CLI sends IMDS through the proxy, the plugin failed",
			got:     verdict(getToken, proxies("NO_PROXY", "169.254.0.0/16,.internal"), failed, kubeapi.ErrExecPlugin),
			verdict: Fail, summary: []string{"likely cause", "through the proxy http://ops:xxxxx@proxy.corp:3128 (HTTP_PROXY)", "169.254.0.0/16", "ignore CIDRs"},
			evidence: []string{"calls http://169.254.169.254/latest/api/token for the instance role's credentials: through", "the kubelet's Go rules would go direct"}},
		{name: "CIDR in NO_PROXY, the plugin gave a token anyway: warn",
			got:     verdict(getToken, proxies("NO_PROXY", "169.254.0.0/16"), token, nil),
			verdict: Warn, summary: []string{"the credential came anyway", "ignore CIDRs"}},
		{name: "IMDS address in NO_PROXY: both go direct",
			got:     verdict(getToken, proxies("NO_PROXY", "169.254.169.254"), token, nil),
			verdict: OK, evidence: []string{"calls http://169.254.169.254/latest/api/token for the instance role's credentials: direct"}},
		{name: "star in a list",
			got:     verdict(getToken, proxies("NO_PROXY", "localhost,*"), token, nil),
			verdict: Warn, summary: []string{"only as the whole value"}},
		{name: "empty no_proxy unsets NO_PROXY for the CLI",
			got:     verdict(getToken, proxies("NO_PROXY", "169.254.169.254", "no_proxy", ""), failed, kubeapi.ErrExecPlugin),
			verdict: Fail, summary: []string{"the CLI reads no NO_PROXY at all"}},
		{name: "HTTPS_PROXY only: IMDS is plain HTTP, direct for both",
			got:     verdict(getToken, map[string]string{"HTTPS_PROXY": "http://proxy.corp:3128"}, token, nil),
			verdict: OK},
		{name: "star dot wildcard for STS with --role-arn: routed otherwise than the kubelet",
			got:     verdict(roleARN, proxies("NO_PROXY", "169.254.169.254,*.amazonaws.com", "AWS_REGION", "eu-west-1"), token, nil),
			verdict: Warn, summary: []string{"routes https://sts.eu-west-1.amazonaws.com otherwise", "write .amazonaws.com"}},
		{name: "STS with its default port in NO_PROXY",
			got:     verdict(roleARN, proxies("NO_PROXY", "169.254.169.254,sts.us-west-2.amazonaws.com:443"), token, nil),
			verdict: Warn, summary: []string{"sts.us-west-2.amazonaws.com:443", "with a port"}},
		{name: "lower-case https_proxy wins for the CLI",
			got:     verdict(roleARN, proxies("NO_PROXY", "169.254.169.254", "https_proxy", "http://other.corp:8080"), token, nil),
			verdict: Warn, summary: []string{"the CLI uses https_proxy"}},
		{name: "static keys and a region: no IMDS request",
			got:     verdict(getToken, proxies("AWS_ACCESS_KEY_ID", "AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY", "x"), token, nil),
			verdict: OK},
		{name: "IMDS turned off",
			got:     verdict(getToken, proxies("AWS_EC2_METADATA_DISABLED", "TRUE"), token, nil),
			verdict: OK},
		{name: "IPv6 metadata endpoint in brackets only for Python",
			got:     verdict(getToken, proxies("AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE", "IPv6", "NO_PROXY", "fd00:ec2::254"), token, nil),
			verdict: Warn, summary: []string{"fd00:ec2::254 exempts it for the kubelet"}, evidence: []string{"calls http://[fd00:ec2::254]/latest/api/token"}},
		{name: "aws-iam-authenticator is Go: nothing to add",
			got:     verdict(authenticator, proxies("NO_PROXY", "169.254.0.0/16"), token, nil),
			verdict: OK},
	})
}
