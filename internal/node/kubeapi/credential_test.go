package kubeapi

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/cmdrun"
	"github.com/nodeboot/nodeboot/internal/testing/pkitest"
)

// fakeRunner answers every command with one result and records it.
type fakeRunner struct {
	res cmdrun.Result
	got cmdrun.Cmd
}

func (f *fakeRunner) Run(_ context.Context, c cmdrun.Cmd) cmdrun.Result {
	f.got = c
	return f.res
}

func files(m map[string][]byte) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if b, ok := m[p]; ok {
			return b, nil
		}
		return nil, fmt.Errorf("open %s: %w", p, fs.ErrNotExist)
	}
}

const execAPI = "client.authentication.k8s.io/v1beta1"

func TestCredential(t *testing.T) {
	pair := pkitest.SelfSigned(t, pkitest.Spec{CN: "system:node:n1", Org: []string{NodesGroup}, Usage: x509.ExtKeyUsageClientAuth})
	certPEM, keyPEM := pair.CertPEM, pair.KeyPEM
	combined := append(append([]byte{}, certPEM...), keyPEM...)
	exp := "2026-11-22T10:14:00Z"
	execOut := func(status string) []byte {
		return []byte(`{"kind":"ExecCredential","apiVersion":"` + execAPI + `","spec":{},"status":` + status + `}`)
	}
	aws := &ExecConfig{Command: "aws", Args: []string{"eks", "get-token"}, APIVersion: execAPI, Env: []ExecEnvVar{{Name: "AWS_PROFILE", Value: "p"}}}
	tests := []struct {
		name    string
		user    User
		run     cmdrun.Result
		source  string
		token   string
		certCN  string
		err     error
		stderr  string
		expires string
	}{
		{name: "static token", user: User{Token: "abcdef.0123456789abcdef"}, source: "token", token: "abcdef.0123456789abcdef"},
		{name: "token file", user: User{TokenFile: "/var/run/token"}, source: "tokenFile /var/run/token", token: "s3cr3t-file-token"},
		{name: "certificate and key in one file, as the kubelet writes it",
			user:   User{ClientCertificate: "/pki/current.pem", ClientKey: "/pki/current.pem"},
			source: "client certificate /pki/current.pem", certCN: "system:node:n1"},
		{name: "certificate data", user: User{ClientCertificateData: certPEM, ClientKeyData: keyPEM}, source: "client-certificate-data", certCN: "system:node:n1"},
		{name: "exec plugin token", user: User{Exec: aws}, run: cmdrun.Result{Stdout: execOut(`{"token":"k8s-aws-v1.x","expirationTimestamp":"` + exp + `"}`), Stderr: []byte("warning: old CLI\n")},
			source: "exec aws", token: "k8s-aws-v1.x", stderr: "warning: old CLI", expires: exp},
		{name: "exec plugin client certificate", user: User{Exec: aws},
			run:    cmdrun.Result{Stdout: execOut(fmt.Sprintf(`{"clientCertificateData":%q,"clientKeyData":%q}`, certPEM, keyPEM))},
			source: "exec aws", certCN: "system:node:n1"},
		{name: "exec plugin fails with its stderr kept", user: User{Exec: aws}, run: cmdrun.Result{ExitCode: 255, Stderr: []byte("Unable to locate credentials\n")},
			source: "exec aws", err: ErrExecPlugin, stderr: "Unable to locate credentials"},
		{name: "exec plugin not installed", user: User{Exec: aws}, run: cmdrun.Result{ExitCode: -1, Err: cmdrun.ErrNotInstalled}, source: "exec aws", err: cmdrun.ErrNotInstalled},
		{name: "exec plugin prints garbage", user: User{Exec: aws}, run: cmdrun.Result{Stdout: []byte("hello")}, source: "exec aws", err: ErrExecPlugin},
		{name: "exec plugin answers another API version", user: User{Exec: aws},
			run:    cmdrun.Result{Stdout: []byte(`{"apiVersion":"client.authentication.k8s.io/v1alpha1","status":{"token":"t"}}`)},
			source: "exec aws", err: ErrExecPlugin},
		{name: "exec plugin prints no credential", user: User{Exec: aws}, run: cmdrun.Result{Stdout: execOut(`{}`)}, source: "exec aws", err: ErrExecPlugin},
		{name: "nothing", user: User{}, err: ErrNoCredential},
		{name: "missing certificate file", user: User{ClientCertificate: "/nope.pem"}, source: "client certificate /nope.pem", err: fs.ErrNotExist},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := &fakeRunner{res: tc.run}
			r := Resolver{ReadFile: files(map[string][]byte{"/var/run/token": []byte("s3cr3t-file-token\n"), "/pki/current.pem": combined}),
				Run: run, Environ: []string{"PATH=/usr/bin"}, ExecTimeout: time.Second}
			cred, err := r.Credential(context.Background(), Cluster{Server: "https://k"}, tc.user)
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if cred.Source != tc.source || cred.Token != tc.token {
				t.Errorf("credential %s, token %q; want source %q token %q", cred.Source, cred.Token, tc.source, tc.token)
			}
			if tc.certCN != "" && (cred.Certificate == nil || cred.Certificate.Leaf.Subject.CommonName != tc.certCN) {
				t.Errorf("certificate %+v, want CN %s", cred.Certificate, tc.certCN)
			}
			if tc.user.Exec != nil {
				if cred.Exec == nil || cred.Exec.Stderr != tc.stderr || cred.Exec.Command != "aws eks get-token" {
					t.Errorf("exec run %+v, want stderr %q", cred.Exec, tc.stderr)
				}
				assertExecEnv(t, run.got.Env)
			}
			if tc.expires != "" && cred.Expiry.Format(time.RFC3339) != tc.expires {
				t.Errorf("expiry %s, want %s", cred.Expiry, tc.expires)
			}
			if tc.token != "" && strings.Contains(cred.String(), tc.token) {
				t.Errorf("String() shows the token: %s", cred)
			}
		})
	}
}

func assertExecEnv(t *testing.T, env []string) {
	t.Helper()
	want := []string{"PATH=/usr/bin", "AWS_PROFILE=p", `KUBERNETES_EXEC_INFO={"apiVersion":"` + execAPI + `","kind":"ExecCredential","spec":{"interactive":false}}`}
	if strings.Join(env, "\n") != strings.Join(want, "\n") {
		t.Errorf("plugin environment:\n%s\nwant:\n%s", strings.Join(env, "\n"), strings.Join(want, "\n"))
	}
}

// TestExecPluginProcess runs a real plugin process: it must see
// KUBERNETES_EXEC_INFO, and its stderr must come back apart from the
// credential.
func TestExecPluginProcess(t *testing.T) {
	dir := t.TempDir()
	plugin := filepath.Join(dir, "plugin")
	script := `#!/bin/sh
echo "plugin: asked for $KUBERNETES_EXEC_INFO" >&2
printf '{"apiVersion":"` + execAPI + `","kind":"ExecCredential","status":{"token":"from-plugin"}}'
`
	if err := os.WriteFile(plugin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := Resolver{Run: cmdrun.Exec{}, ExecTimeout: 10 * time.Second}
	cred, err := r.Credential(context.Background(), Cluster{Server: "https://k"}, User{Exec: &ExecConfig{Command: plugin, APIVersion: execAPI}})
	if err != nil {
		t.Fatal(err)
	}
	if cred.Token != "from-plugin" || !strings.Contains(cred.Exec.Stderr, `"kind":"ExecCredential"`) || cred.Exec.ExitCode != 0 {
		t.Errorf("credential %q, run %+v", cred.Token, cred.Exec)
	}
}
