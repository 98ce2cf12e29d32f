package redact

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// redactCase is one real-world file with the secrets it holds, what must
// stay, and the findings expected (rule and line; field when set).
type redactCase struct {
	name    string
	input   string
	secrets []string
	keep    []string
	want    []Finding
}

func redactCases(t testing.TB) []redactCase {
	key, ca := testKey(t), testCA(t)
	secrets := func(extra ...string) []string { return append(keyBody(t), extra...) }
	return []redactCase{
		{
			name: "nodeboot.io NodeConfig with a bootstrap token under identity",
			input: `apiVersion: nodeboot.io/v1alpha1
kind: NodeConfig
spec:
  cluster:
    name: prod
    apiServerEndpoint: https://10.0.0.1:6443
    certificateAuthority: ` + b64(ca) + `
  identity:
    mode: BootstrapToken
    bootstrapToken:
      token: ` + bootstrapToken + `
      caCertHashes: ["sha256:7c0d3c1e"]
  kubelet:
    flags:
      - --node-labels=team=blue
`,
			secrets: []string{bootstrapToken, "BootstrapToken", "sha256:7c0d3c1e"},
			keep:    []string{"name: prod", "https://10.0.0.1:6443", b64(ca), "--node-labels=team=blue", "identity:", "bootstrapToken:", "token: REDACTED"},
			want: []Finding{
				{Rule: RuleIdentity, Line: 9, Field: "identity.mode"},
				{Rule: RuleIdentity, Line: 11, Field: "identity.bootstrapToken.token"},
				{Rule: RuleIdentity, Line: 12, Field: "identity.bootstrapToken.caCertHashes"},
			},
		},
		{
			name: "NodeConfig identity exec plugin with environment, in a list item",
			input: `- apiVersion: nodeboot.io/v1alpha1
  spec:
    identity:
      exec:
        command: /usr/local/bin/get-token
        args:
          - --profile
          - node-role
        env:
          AWS_PROFILE: nodes
        script: |
          export TOKEN=s3cr3t-script-value
          run-it
    cluster:
      name: lab
`,
			secrets: []string{"get-token", "node-role", "nodes", "s3cr3t-script-value", "run-it"},
			keep:    []string{"identity:", "exec:", "args:", "name: lab", "script: |"},
		},
		{
			name: "config cache JSON (pretty) with identity and the CA",
			input: `{
  "userSpec": {
    "cluster": {"name": "prod", "certificateAuthority": "` + b64(ca) + `"},
    "identity": {
      "mode": "BootstrapToken",
      "bootstrapToken": {
        "token": "` + bootstrapToken + `",
        "caCertHashes": ["sha256:abcd"]
      }
    }
  }
}
`,
			secrets: []string{bootstrapToken, "BootstrapToken", "sha256:abcd"},
			keep:    []string{`"name": "prod"`, b64(ca), `"token": "REDACTED"`, `"mode": "REDACTED"`},
			want: []Finding{
				{Rule: RuleIdentity, Line: 5, Field: "identity.mode"},
				{Rule: RuleIdentity, Line: 7, Field: "identity.token"},
				{Rule: RuleIdentity, Line: 8, Field: "identity.caCertHashes"},
			},
		},
		{
			name:    "compact JSON user data",
			input:   `{"apiVersion":"nodeboot.io/v1alpha1","kind":"NodeConfig","spec":{"identity":{"exec":{"command":"aws","env":{"AWS_ROLE_ARN":"arn:aws:iam::1:role/n"}}},"cluster":{"name":"x"}}}`,
			secrets: []string{"arn:aws:iam::1:role/n", `"aws"`},
			keep:    []string{`"cluster":{"name":"x"}`, `"command":"REDACTED"`},
		},
		{
			name: "bootstrap kubeconfig with a token, CA by file",
			input: `apiVersion: v1
kind: Config
clusters:
- name: kubernetes
  cluster:
    certificate-authority: /etc/kubernetes/pki/ca.crt
    server: https://127.0.0.1:6443
users:
- name: kubelet-bootstrap
  user:
    token: ` + bootstrapToken + `
`,
			secrets: []string{bootstrapToken},
			keep:    []string{"certificate-authority: /etc/kubernetes/pki/ca.crt", "server: https://127.0.0.1:6443"},
			want:    []Finding{{Rule: RuleSensitiveKey, Line: 11, Field: "token"}},
		},
		{
			name: "kubeconfig with embedded client key, client certificate and CA data",
			input: `users:
- name: admin
  user:
    client-certificate-data: ` + b64(ca) + `
    client-key-data: ` + b64(key) + `
    tokenFile: /var/run/secrets/token
clusters:
- cluster:
    certificate-authority-data: ` + b64(ca) + `
`,
			secrets: []string{b64(key)},
			keep:    []string{"client-certificate-data: " + b64(ca), "certificate-authority-data: " + b64(ca), "tokenFile: /var/run/secrets/token"},
			want:    []Finding{{Rule: RuleSensitiveKey, Line: 5, Field: "client-key-data"}},
		},
		{
			name:    "kubelet client certificate file: certificate and key in one PEM",
			input:   ca + key,
			secrets: secrets(),
			keep:    []string{strings.TrimSpace(ca), "-----BEGIN EC PRIVATE KEY-----", "-----END EC PRIVATE KEY-----"},
			want:    []Finding{{Rule: RulePrivateKey, Line: strings.Count(ca, "\n") + 1, Field: "EC PRIVATE KEY"}},
		},
		{
			name:    "private key escaped inside a JSON string",
			input:   `{"tls.key": "` + strings.ReplaceAll(key, "\n", `\n`) + `", "tls.crt": "x"}`,
			secrets: secrets(),
			keep:    []string{`"tls.crt": "x"`},
		},
		{
			name:    "private key indented in a YAML block scalar",
			input:   "files:\n  - path: /etc/x.key\n    content: |\n" + indent(key, "      ") + "\n    owner: root\n",
			secrets: secrets(),
			keep:    []string{"owner: root", "path: /etc/x.key"},
		},
		{
			name:    "truncated private key at the end of a log",
			input:   "I1122 starting\n" + strings.Join(strings.Split(key, "\n")[:3], "\n"),
			secrets: keyBody(t)[:2],
			keep:    []string{"I1122 starting"},
		},
		{
			name: "Bottlerocket TOML settings",
			input: `[settings.kubernetes]
cluster-name = "prod"
api-server = "https://api.example.com"
cluster-certificate = "` + b64(ca) + `"
bootstrap-token = "` + bootstrapToken + `"

[settings.network]
https-proxy = "http://squid:` + proxyPassword + `@proxy.internal:3128"
no-proxy = ["localhost", "10.0.0.0/8"]

[settings.aws]
config = "` + b64("[default]\nregion = us-west-2\naws_secret_access_key = "+secretKey+"\n") + `"
`,
			secrets: []string{bootstrapToken, proxyPassword, "squid", secretKey},
			keep:    []string{`cluster-name = "prod"`, b64(ca), "proxy.internal:3128", `no-proxy = ["localhost", "10.0.0.0/8"]`},
			want: []Finding{
				{Rule: RuleSensitiveKey, Line: 5, Field: "bootstrap-token"},
				{Rule: RuleURLCredentials, Line: 8},
				{Rule: RuleEncodedSecret, Line: 12},
			},
		},
		{
			name: "AL2 bootstrap.sh user data with exported keys and a proxy",
			input: `#!/bin/bash
set -ex
export AWS_ACCESS_KEY_ID=` + accessKeyID + `
export AWS_SECRET_ACCESS_KEY="` + secretKey + `"
AWS_SESSION_TOKEN='` + sessionToken + `' aws s3 cp s3://bucket/x /tmp/x
export HTTPS_PROXY=http://user:` + proxyPassword + `@10.0.0.9:3128
/etc/eks/bootstrap.sh prod --kubelet-extra-args '--node-labels=a=b --max-pods=20' --b64-cluster-ca ` + b64(ca) + `
`,
			secrets: []string{accessKeyID, secretKey, sessionToken, proxyPassword},
			keep:    []string{"/etc/eks/bootstrap.sh prod", "--node-labels=a=b --max-pods=20", b64(ca), "s3://bucket/x", "@10.0.0.9:3128"},
		},
		{
			name: "systemd environment drop-ins",
			input: `[Manager]
DefaultEnvironment="HTTPS_PROXY=http://ops:` + proxyPassword + `@proxy:3128" "NO_PROXY=10.0.0.0/8"
[Service]
Environment="AWS_SECRET_ACCESS_KEY=` + secretKey + `"
`,
			secrets: []string{proxyPassword, secretKey},
			keep:    []string{"NO_PROXY=10.0.0.0/8", "@proxy:3128"},
		},
		{
			name: "proxy URLs with a raw slash in the password",
			input: `HTTPS_PROXY=http://user:pa/ss-` + proxyPassword + `@proxy:3128
image docker.io/library/pause@sha256:0123 from https://registry.example.com/v2/pause
`,
			secrets: []string{"pa/ss-" + proxyPassword},
			keep:    []string{"HTTPS_PROXY=http://REDACTED@proxy:3128", "docker.io/library/pause@sha256:0123 from https://registry.example.com/v2/pause"},
			want:    []Finding{{Rule: RuleURLCredentials, Line: 1}},
		},
		{
			name: "containerd registry credentials",
			input: `[plugins."io.containerd.grpc.v1.cri".registry.configs."registry.example.com".auth]
  username = "robot"
  password = "` + proxyPassword + `"
  auth = "` + b64("robot:"+proxyPassword) + `"
  identitytoken = "` + staticToken + `"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
  SystemdCgroup = true
`,
			secrets: []string{proxyPassword, b64("robot:" + proxyPassword), staticToken},
			keep:    []string{`username = "robot"`, "SystemdCgroup = true"},
		},
		{
			name:    "ExecCredential printed by a credential plugin",
			input:   `{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","spec":{},"status":{"expirationTimestamp":"2026-11-22T10:14:00Z","token":"` + eksToken + `"}}`,
			secrets: []string{eksToken, "aHR0cHM6Ly9zdHMu"},
			keep:    []string{`"expirationTimestamp":"2026-11-22T10:14:00Z"`},
		},
		{
			name: "kubelet and agent log lines",
			input: `I1122 10:00:00.000000 1 round_trippers.go:470] curl -v -XGET -H "Authorization: Bearer ` + staticToken + `" 'https://127.0.0.1:6443/api'
E1122 10:00:01.000000 1 token.go:9] using token ` + eksToken + `
I1122 10:00:02.000000 1 sa.go:1] projected token ` + jwtToken + ` mounted
level=INFO msg="discovered CA" token=` + bootstrapToken + ` endpoint=https://127.0.0.1:6443
`,
			secrets: []string{staticToken, eksToken, jwtToken, bootstrapToken},
			keep:    []string{"round_trippers.go:470", "endpoint=https://127.0.0.1:6443", "projected token REDACTED mounted"},
		},
		{
			name:    "AWS shared credentials file",
			input:   "[default]\naws_access_key_id = " + accessKeyID + "\naws_secret_access_key = " + secretKey + "\naws_session_token = " + sessionToken + "\nregion = us-west-2\n",
			secrets: []string{accessKeyID, secretKey, sessionToken},
			keep:    []string{"region = us-west-2", "[default]"},
		},
		{
			name:    "cloud-init output echoing gzip+base64 user data",
			input:   "Cloud-init v. 24.1 running\nuser data: " + gzipB64(t, "spec:\n  identity:\n    bootstrapToken:\n      token: "+bootstrapToken+"\n") + "\nfinished\n",
			secrets: []string{gzipB64(t, "spec:\n  identity:\n    bootstrapToken:\n      token: "+bootstrapToken+"\n")},
			keep:    []string{"Cloud-init v. 24.1 running", "finished"},
			want:    []Finding{{Rule: RuleEncodedSecret, Line: 2}},
		},
		{
			name: "MIME user data with a base64 NodeConfig part",
			input: "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\nContent-Type: application/node.eks.aws\nContent-Transfer-Encoding: base64\n\n" +
				wrap76(b64("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: prod\n  identity:\n    bootstrapToken:\n      token: "+bootstrapToken+"\n")) + "\n--//--\n",
			secrets: strings.Split(wrap76(b64("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: prod\n  identity:\n    bootstrapToken:\n      token: "+bootstrapToken+"\n")), "\n"),
			keep:    []string{"Content-Type: application/node.eks.aws", "--//--"},
			want:    []Finding{{Rule: RuleEncodedSecret, Line: 8}},
		},
		{
			name:    "presigned URL and query-string credentials",
			input:   "GET https://bucket.s3.amazonaws.com/key?X-Amz-Credential=" + accessKeyID + "%2F20261122&X-Amz-Security-Token=" + sessionToken + "&X-Amz-Signature=0a1b2c3d4e&x-id=GetObject\n",
			secrets: []string{accessKeyID, sessionToken, "0a1b2c3d4e"},
			keep:    []string{"https://bucket.s3.amazonaws.com/key?", "x-id=GetObject"},
		},
		{
			name:    "flags with a separate or attached value",
			input:   "kube-apiserver --token-auth-file=/etc/tokens.csv --oidc-client-secret " + staticToken + " --kubelet-client-key=/k --password=" + proxyPassword + " --anonymous-auth=false\n",
			secrets: []string{staticToken, proxyPassword},
			keep:    []string{"--token-auth-file=/etc/tokens.csv", "--kubelet-client-key=/k", "--anonymous-auth=false"},
		},
		{
			name: "kubelet config and rendered files without secrets stay as they are",
			input: `{
    "authentication": {"x509": {"clientCAFile": "/etc/kubernetes/pki/ca.crt"}, "anonymous": {"enabled": false}},
    "authorization": {"mode": "Webhook"},
    "serverTLSBootstrap": true,
    "providerID": "aws:///us-west-2a/i-0123"
}
NODEADM_KUBELET_ARGS=--node-ip=10.0.0.5 --hostname-override=ip-10-0-0-5.us-west-2.compute.internal --kubeconfig=/var/lib/kubelet/kubeconfig
container 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef started
`,
		},
		{
			// Written by curl 7.88.1 --trace against a local server: the
			// bearer token, the cookie and the session token cut across
			// lines, in the hex and the text columns.
			name:  "curl --trace hex dump with Authorization, Cookie and X-Amz-Security-Token",
			input: readTestdata(t, "curl-trace-hex.txt"),
			secrets: []string{
				"7ihGyiRUIQfH", "OJMaidDn87XG3_q_", "t0ZBfdTEmxI6Cmux", "IQoJb3JpZ2lu", "X2VjEVmihA/2O76U",
				"37 69 68 47 79 69 52 55", "4f 4a 4d 61 69 64 44 6e", "58 32 56 6a 45 56 6d 69",
			},
			keep: []string{"0010: 0a 48 6f 73 74 3a 20 31 32 37 2e 30 2e 30 2e 31 .Host: 127.0.0.1", "thorization: ", "okie: ", "X-Amz-Security-T",
				"<= Recv header, 17 bytes (0x11)", "0000: 48 54 54 50 2f 31 2e 30 20 32 30 30 20 4f 4b 0d HTTP/1.0 200 OK."},
			want: []Finding{{Rule: RuleSensitiveKey, Line: 9, Field: "Authorization"}, {Rule: RuleSensitiveKey, Line: 13, Field: "Cookie"}, {Rule: RuleSensitiveKey, Line: 17, Field: "X-Amz-Security-Token"}},
		},
		{
			// Written by the AWS CLI (v1.45 and Debian's v2.9) into a pipe:
			// narrow enough for 80 columns, a dict is laid out as a header
			// row over a row of values, a list one value a row.
			name: "aws --output table laid out in columns and as a list",
			input: `--------------------------------------------------------------------
|                          CreateAccessKey                         |
+-------------------------------------------+---------+------------+
|              SecretAccessKey              | Status  | UserName   |
+-------------------------------------------+---------+------------+
|  wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY |  Active |  bob       |
+-------------------------------------------+---------+------------+
----------------------------------------------------------------------
|                           GetSessionToken                          |
+-----------------------+--------------------------------------------+
|      Expiration       |              SecretAccessKey               |
+-----------------------+--------------------------------------------+
|  2026-11-28T23:00:00Z |  wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY  |
+-----------------------+--------------------------------------------+
----------------------------------------------
|               CreateAccessKey              |
+--------------------------------------------+
|  AKIAIOSFODNN7EXAMPLE                      |
|  wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY  |
+--------------------------------------------+
`,
			secrets: []string{secretKey, accessKeyID},
			keep:    []string{"| Status  | UserName   |", "|  Active |  bob       |", "|  2026-11-28T23:00:00Z |", "|      Expiration       |              SecretAccessKey               |"},
			want: []Finding{{Rule: RuleSensitiveKey, Line: 6, Field: "SecretAccessKey"}, {Rule: RuleSensitiveKey, Line: 13, Field: "SecretAccessKey"},
				{Rule: RuleAWSAccessKeyID, Line: 18}, {Rule: RuleAWSSecretKey, Line: 19}},
		},
		{
			name:  "hexdump -C and xxd of a CA certificate, digests and a container ID stay",
			input: hex.Dump([]byte(ca)) + xxdDump("sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\ncontainer 0123456789abcdef0123456789abcdef started at 2026-11-28T21:00:00Z\n"),
		},
	}
}

func TestBytes(t *testing.T) {
	for _, tc := range redactCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			out, findings := Bytes([]byte(tc.input))
			got := string(out)
			for _, s := range tc.secrets {
				if strings.Contains(got, s) {
					t.Errorf("secret %q left in output:\n%s", s, got)
				}
			}
			for _, k := range tc.keep {
				if !strings.Contains(got, k) {
					t.Errorf("output lost %q:\n%s", k, got)
				}
			}
			if tc.secrets == nil && got != tc.input {
				t.Errorf("input without secrets changed:\n%s", got)
			}
			if tc.secrets != nil && len(findings) == 0 {
				t.Errorf("no findings")
			}
			if tc.secrets == nil && len(findings) > 0 {
				t.Errorf("findings on input without secrets: %+v", findings)
			}
			for _, w := range tc.want {
				if !slices.ContainsFunc(findings, func(f Finding) bool {
					return f.Rule == w.Rule && f.Line == w.Line && (w.Field == "" || f.Field == w.Field)
				}) {
					t.Errorf("missing finding %+v; got %+v", w, findings)
				}
			}
			if a, b := strings.Count(tc.input, "\n"), strings.Count(got, "\n"); a != b {
				t.Errorf("line count changed from %d to %d", a, b)
			}
			assertFindingsClean(t, findings, tc.secrets)
			again, more := Bytes(out)
			if !bytes.Equal(again, out) || len(more) > 0 {
				t.Errorf("redacting again changed the output or found %+v:\n%s", more, again)
			}
		})
	}
}

// assertFindingsClean checks that no finding repeats a secret.
func assertFindingsClean(t *testing.T, findings []Finding, secrets []string) {
	t.Helper()
	for _, f := range findings {
		text := fmt.Sprintf("%+v", f)
		for _, s := range secrets {
			if len(s) >= 6 && strings.Contains(text, s) {
				t.Errorf("finding %s repeats secret %q", text, s)
			}
		}
	}
}

func TestSensitiveKey(t *testing.T) {
	for key, want := range map[string]bool{
		"token": true, "bootstrap-token": true, "AWS_SECRET_ACCESS_KEY": true, "aws_access_key_id": true,
		"client-key-data": true, "password": true, "db_password_hash": true, "identitytoken": true,
		"X-Amz-Security-Token": true, "Authorization": true, "--oidc-client-secret": true, "auth": true,
		"tokenFile": false, "token-id": false, "secretName": false, "authorization-mode": false,
		"cacheAuthorizedTTL": false, "serverTLSBootstrap": false, "certificate-authority-data": false,
		"client-certificate-data": false, "expirationTimestamp": false, "name": false, "": false,
	} {
		if got := sensitiveKey([]byte(key)); got != want {
			t.Errorf("sensitiveKey(%q) = %v, want %v", key, got, want)
		}
	}
}

func BenchmarkBytesLog(b *testing.B) {
	var log bytes.Buffer
	for i := range 20000 {
		fmt.Fprintf(&log, "I1122 10:00:%02d.000000 1 kubelet.go:%d] \"Syncing pod\" pod=\"kube-system/coredns-%d\" containerID=\"containerd://0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"\n", i%60, i, i)
	}
	b.SetBytes(int64(log.Len()))
	for b.Loop() {
		Bytes(log.Bytes())
	}
}

func BenchmarkCopyLog(b *testing.B) {
	var log bytes.Buffer
	for i := range 20000 {
		fmt.Fprintf(&log, "I1122 10:00:%02d.000000 1 kubelet.go:%d] \"Syncing pod\" pod=\"kube-system/coredns-%d\" containerID=\"containerd://0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"\n", i%60, i, i)
	}
	b.SetBytes(int64(log.Len()))
	for b.Loop() {
		if _, err := Copy(io.Discard, bytes.NewReader(log.Bytes())); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCopyTailMasksTheCutLine feeds CopyTail the last bytes of a log, cut
// at any byte as the bundle's spool cuts a journal: the first line is a
// fragment whose key may be gone, and must not survive.
func TestCopyTailMasksTheCutLine(t *testing.T) {
	const secret = "7ihGyiRUIQfHOJMaidDn87XG3_q_xbMtEPO6UkzY"
	after := "I1128 21:00:01.000000     900 kubelet.go:1] \"Pod sync\" pod=\"kube-system/coredns-1\"\n"
	for _, tc := range []struct{ name, first string }{
		{"flag cut before its name (--token=)", "ken=" + secret + " --v=2\n"},
		{"yaml key cut", "ord: " + secret + "\n"},
		{"json member cut", `en":"` + secret + `"}` + "\n"},
		{"header cut", "rization: Bearer " + secret + "\n"},
		{"a whole line, not known to start at the cut", "I1128 21:00:00.000000 900 kubelet.go:1] token=" + secret + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			sum, err := CopyTail(&out, strings.NewReader(tc.first+after), false)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out.String(), secret[:12]) {
				t.Errorf("the cut line's secret survived:\n%s", out.String())
			}
			if want := Mask + "\n" + after; out.String() != want {
				t.Errorf("got\n%s\nwant\n%s", out.String(), want)
			}
			if len(sum.Findings) == 0 || sum.Findings[0] != (Finding{Rule: RuleCutLine, Line: 1}) {
				t.Errorf("findings %+v, want the cut line first", sum.Findings)
			}
		})
	}
}

// TestCopyTailCutAtALineStart feeds CopyTail a log cut just after a line
// break: its first line is whole and is redacted like any other, not
// masked whole; the rest of a key whose BEGIN line was cut off is still
// masked.
func TestCopyTailCutAtALineStart(t *testing.T) {
	const secret = "7ihGyiRUIQfHOJMaidDn87XG3_q_xbMtEPO6UkzY"
	after := "I1128 21:00:01.000000     900 kubelet.go:1] \"Pod sync\" pod=\"kube-system/coredns-1\"\n"
	body := keyBody(t)
	for _, tc := range []struct{ name, input, want string }{
		{"klog line", after + after, after + after},
		{"klog line with a token", "I1128 21:00:00.000000 900 kubelet.go:1] \"Got\" token=\"" + secret + "\" expires=\"2026-11-28\"\n" + after,
			"I1128 21:00:00.000000 900 kubelet.go:1] \"Got\" token=\"REDACTED\" expires=\"2026-11-28\"\n" + after},
		{"key cut after its BEGIN line", strings.Join(body[1:], "\n") + "\n-----END RSA PRIVATE KEY-----\n" + after,
			strings.Repeat(Mask+"\n", len(body)-1) + "-----END RSA PRIVATE KEY-----\n" + after},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			sum, err := CopyTail(&out, strings.NewReader(tc.input), true)
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", out.String(), tc.want)
			}
			for _, f := range sum.Findings {
				if f.Rule == RuleCutLine {
					t.Errorf("a whole first line counted as cut: %+v", sum.Findings)
				}
			}
		})
	}
}

// TestOrdinaryTablesFlagsAndMapsStay checks that the rules for tables,
// "-u user:password" flags and Go's printed maps leave ordinary lines of
// those shapes alone.
func TestOrdinaryTablesFlagsAndMapsStay(t *testing.T) {
	for _, line := range []string{
		"+ docker run -u 1000:1000 --rm busybox id",
		"+ ctr run -u 0:0 docker.io/library/busybox:latest t1",
		"||  Expiration     |  2026-11-28T23:00:00Z                    ||",
		"|  Arn  |  arn:aws:sts::123456789012:assumed-role/r/s  |",
		"headers: map[Accept:[application/json] Content-Type:[text/plain; charset=utf-8]]",
		"+ curl -sSf -u robot https://r.example.com/v2/",
		"Authorization: REDACTED",
		"x-amz-id-2: Oc2yqFJvA5Qq8bbQ8HexPSnmx0zQ6nkx2l1nL0RrK3q4ZMRLc1g2P8bZ6Ue5lLPSzlsnW5Kf0xY=",
	} {
		if out, findings := Bytes([]byte(line + "\n")); string(out) != line+"\n" || len(findings) > 0 {
			t.Errorf("%q -> %q (%+v)", line, out, findings)
		}
	}
}

// TestCopyTailKeepsTheLog checks what CopyTail masks after the cut line:
// the rest of a private key whose BEGIN line was cut off, and nothing of
// the ordinary log lines that follow (each has a colon, as every
// timestamp does: they once counted as key lines, and the first 512 lines
// of every cut journal were masked).
func TestCopyTailKeepsTheLog(t *testing.T) {
	body := keyBody(t)
	prefix := "2026-11-28T21:00:00.123456+0000 ip-10-0-0-1 cloud-init[812]: "
	var klog strings.Builder
	for i := range 600 {
		fmt.Fprintf(&klog, "%sI1128 21:00:%02d.000000 900 kubelet.go:%d] \"Pod sync\" pod=\"kube-system/coredns-1\"\n", prefix, i%60, i)
	}
	for _, tc := range []struct {
		name, input string
		masked      int // lines masked from the start
	}{
		{"klog lines", "cut line\n" + klog.String(), 1},
		{"key cut after its BEGIN line", strings.Join(body[1:], "\n") + "\n-----END RSA PRIVATE KEY-----\n" + klog.String(), len(body) - 1},
		{"key cut, journal-prefixed", prefix + strings.Join(body[1:], "\n"+prefix) + "\n" + prefix + "-----END RSA PRIVATE KEY-----\n" + klog.String(), len(body)}, // the END line's prefix too
		{"key cut, its END never logged", strings.Join(body[1:], "\n") + "\n" + klog.String(), len(body) - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if _, err := CopyTail(&out, strings.NewReader(tc.input), false); err != nil {
				t.Fatal(err)
			}
			for _, s := range body {
				if strings.Contains(out.String(), s) {
					t.Errorf("key line %q survived", s)
				}
			}
			in, got := strings.Split(tc.input, "\n"), strings.Split(out.String(), "\n")
			for i := range in {
				if masked := got[i] != in[i]; masked != (i < tc.masked) {
					t.Errorf("line %d %q -> %q", i+1, in[i], got[i])
				}
			}
		})
	}
}
