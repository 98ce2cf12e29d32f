package kubeapi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/cmdrun"
)

// Errors returned (wrapped) by Resolver.Credential.
var (
	// ErrNoCredential: the kubeconfig user has no way to authenticate.
	ErrNoCredential = errors.New("kubeconfig user has no credential")
	// ErrExecPlugin: the credential plugin failed or printed no credential.
	ErrExecPlugin = errors.New("credential plugin failed")
)

// Credential is what a request authenticates with. Its String never shows
// the secret.
type Credential struct {
	// Source says where the credential came from, e.g. "token",
	// "client certificate /var/lib/kubelet/pki/kubelet-client-current.pem",
	// "exec aws".
	Source string
	// Token is a bearer token (token, tokenFile or exec plugin).
	Token string
	// Certificate is a client certificate (files, data or exec plugin).
	Certificate *tls.Certificate
	// Expiry is when the credential stops working, when known.
	Expiry time.Time
	// Exec describes the plugin run, for an exec credential.
	Exec *ExecRun
}

// String describes the credential without its secret.
func (c Credential) String() string {
	kind := "no credential"
	switch {
	case c.Token != "":
		kind = fmt.Sprintf("bearer token (%d characters)", len(c.Token))
	case c.Certificate != nil && c.Certificate.Leaf != nil:
		kind = "client certificate " + c.Certificate.Leaf.Subject.String()
	case c.Certificate != nil:
		kind = "client certificate"
	}
	return kind + " from " + c.Source
}

// ExecRun is one run of a credential plugin: its command line, exit code
// and standard error (kept apart from the credential on standard output).
type ExecRun struct {
	Command  string        `json:"command"`
	ExitCode int           `json:"exitCode"`
	Stderr   string        `json:"stderr,omitempty"`
	Duration time.Duration `json:"duration"`
}

// Resolver obtains credentials as the kubelet would.
type Resolver struct {
	// ReadFile reads a path named in the kubeconfig (a node path; the
	// caller maps it under --root).
	ReadFile func(path string) ([]byte, error)
	// Run runs credential plugins.
	Run cmdrun.Runner
	// Environ is the plugin's base environment (the kubelet's).
	Environ []string
	// ExecTimeout bounds a plugin run.
	ExecTimeout time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Credential returns the credential of user u for cluster c, in the
// kubelet's order of preference: client certificate, token, token file,
// exec plugin.
func (r Resolver) Credential(ctx context.Context, c Cluster, u User) (Credential, error) {
	switch {
	case u.ClientCertificate != "" || len(u.ClientCertificateData) > 0:
		return r.clientCertificate(u)
	case u.Token != "":
		return Credential{Source: "token", Token: u.Token}, nil
	case u.TokenFile != "":
		b, err := r.ReadFile(u.TokenFile)
		if err != nil {
			return Credential{Source: "tokenFile " + u.TokenFile}, fmt.Errorf("read token file: %w", err)
		}
		return Credential{Source: "tokenFile " + u.TokenFile, Token: strings.TrimSpace(string(b))}, nil
	case u.Exec != nil:
		return r.exec(ctx, c, *u.Exec)
	}
	return Credential{}, ErrNoCredential
}

func (r Resolver) clientCertificate(u User) (Credential, error) {
	source := "client-certificate-data"
	certPEM, keyPEM := u.ClientCertificateData, u.ClientKeyData
	var err error
	if u.ClientCertificate != "" {
		source = "client certificate " + u.ClientCertificate
		if certPEM, err = r.ReadFile(u.ClientCertificate); err != nil {
			return Credential{Source: source}, fmt.Errorf("read client certificate: %w", err)
		}
	}
	if u.ClientKey != "" {
		if keyPEM, err = r.ReadFile(u.ClientKey); err != nil {
			return Credential{Source: source}, fmt.Errorf("read client key: %w", err)
		}
	}
	cert, err := x509KeyPair(certPEM, keyPEM)
	if err != nil {
		return Credential{Source: source}, fmt.Errorf("client certificate: %w", err)
	}
	return Credential{Source: source, Certificate: &cert, Expiry: cert.Leaf.NotAfter}, nil
}

// x509KeyPair loads a pair whose certificate and key may share one PEM file
// (the kubelet's kubelet-client-current.pem).
func x509KeyPair(certPEM, keyPEM []byte) (tls.Certificate, error) {
	certs, keys := splitPEM(certPEM)
	if len(keyPEM) > 0 {
		_, keys = splitPEM(keyPEM)
	}
	cert, err := tls.X509KeyPair(certs, keys)
	if err != nil {
		return tls.Certificate{}, err
	}
	if cert.Leaf == nil {
		if cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return tls.Certificate{}, err
		}
	}
	return cert, nil
}

// splitPEM separates certificate blocks from key blocks.
func splitPEM(data []byte) (certs, keys []byte) {
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return certs, keys
		}
		if b.Type == "CERTIFICATE" {
			certs = append(certs, pem.EncodeToMemory(b)...)
		} else if strings.HasSuffix(b.Type, "PRIVATE KEY") {
			keys = append(keys, pem.EncodeToMemory(b)...)
		}
	}
}

// execCredential is the client.authentication.k8s.io ExecCredential.
type execCredential struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Interactive bool            `json:"interactive"`
		Cluster     *execClusterRef `json:"cluster,omitempty"`
	} `json:"spec"`
	Status *struct {
		Token                 string    `json:"token,omitempty"`
		ClientCertificateData string    `json:"clientCertificateData,omitempty"`
		ClientKeyData         string    `json:"clientKeyData,omitempty"`
		ExpirationTimestamp   time.Time `json:"expirationTimestamp,omitzero"`
	} `json:"status,omitempty"`
}

type execClusterRef struct {
	Server                   string `json:"server"`
	TLSServerName            string `json:"tls-server-name,omitempty"`
	CertificateAuthorityData []byte `json:"certificate-authority-data,omitempty"`
}

// exec runs the plugin as client-go does: KUBERNETES_EXEC_INFO describes
// the request, the credential comes on standard output, and standard error
// is captured separately (never interleaved with the caller's output).
func (r Resolver) exec(ctx context.Context, c Cluster, e ExecConfig) (Credential, error) {
	cred := Credential{Source: "exec " + e.Command}
	env, err := r.execEnv(c, e)
	if err != nil {
		return cred, err
	}
	cmd := cmdrun.Cmd{Name: e.Command, Args: e.Args, Env: env, Timeout: r.ExecTimeout, MaxOutput: 1 << 20}
	res := r.Run.Run(ctx, cmd)
	cred.Exec = &ExecRun{Command: cmd.String(), ExitCode: res.ExitCode, Stderr: strings.TrimSpace(string(res.Stderr)), Duration: res.Duration}
	switch {
	case res.Err != nil:
		return cred, fmt.Errorf("%w: %w", ErrExecPlugin, res.Err)
	case res.ExitCode != 0:
		return cred, fmt.Errorf("%w: %s exited with code %d", ErrExecPlugin, e.Command, res.ExitCode)
	}
	return execResult(cred, e, res.Stdout)
}

// execEnv is the plugin's environment: the base (the kubelet's), the
// kubeconfig's env, and KUBERNETES_EXEC_INFO.
func (r Resolver) execEnv(c Cluster, e ExecConfig) ([]string, error) {
	info := execCredential{APIVersion: e.APIVersion, Kind: "ExecCredential"}
	if e.ProvideClusterInfo {
		info.Spec.Cluster = &execClusterRef{Server: c.Server, TLSServerName: c.TLSServerName, CertificateAuthorityData: c.CertificateAuthorityData}
	}
	infoJSON, err := json.Marshal(info)
	if err != nil {
		return nil, err
	}
	env := append([]string{}, r.Environ...)
	for _, v := range e.Env {
		env = append(env, v.Name+"="+v.Value)
	}
	return append(env, "KUBERNETES_EXEC_INFO="+string(infoJSON)), nil
}

// execResult reads the ExecCredential a plugin printed.
func execResult(cred Credential, e ExecConfig, stdout []byte) (Credential, error) {
	var out execCredential
	if err := json.Unmarshal(stdout, &out); err != nil {
		return cred, fmt.Errorf("%w: %s printed no ExecCredential: %v", ErrExecPlugin, e.Command, err)
	}
	if out.APIVersion != e.APIVersion || out.Status == nil {
		return cred, fmt.Errorf("%w: %s printed apiVersion %q without status (want %q)", ErrExecPlugin, e.Command, out.APIVersion, e.APIVersion)
	}
	cred.Expiry = out.Status.ExpirationTimestamp
	switch {
	case out.Status.Token != "":
		cred.Token = out.Status.Token
	case out.Status.ClientCertificateData != "":
		cert, err := x509KeyPair([]byte(out.Status.ClientCertificateData), []byte(out.Status.ClientKeyData))
		if err != nil {
			return cred, fmt.Errorf("%w: client certificate from %s: %v", ErrExecPlugin, e.Command, err)
		}
		cred.Certificate = &cert
	default:
		return cred, fmt.Errorf("%w: %s printed neither a token nor a client certificate", ErrExecPlugin, e.Command)
	}
	return cred, nil
}

// CAs returns the cluster CA certificates (certificate-authority-data, else
// the certificate-authority file).
func (r Resolver) CAs(c Cluster) ([]*x509.Certificate, error) {
	data, from := c.CertificateAuthorityData, "certificate-authority-data"
	if len(data) == 0 {
		if c.CertificateAuthority == "" {
			return nil, errors.New("kubeconfig names no cluster CA")
		}
		from = c.CertificateAuthority
		var err error
		if data, err = r.ReadFile(c.CertificateAuthority); err != nil {
			return nil, fmt.Errorf("read cluster CA: %w", err)
		}
	}
	certs, err := ParseCertificates(data)
	if err != nil {
		return nil, fmt.Errorf("cluster CA %s: %w", from, err)
	}
	return certs, nil
}

// ParseCertificates parses every CERTIFICATE block of a PEM bundle.
func ParseCertificates(data []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New("no PEM certificate")
	}
	return out, nil
}
