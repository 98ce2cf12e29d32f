package kubeapi

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ProxyFunc chooses a proxy for a request, like http.Transport.Proxy.
type ProxyFunc = func(*http.Request) (*url.URL, error)

// Options configure a Client.
type Options struct {
	// Server is the API server URL.
	Server string
	// TLSServerName overrides the name the server certificate is checked for.
	TLSServerName string
	// CAs are the trusted cluster CAs; the server certificate must chain
	// to one of them.
	CAs []*x509.Certificate
	// Credential authenticates requests; the zero value is anonymous.
	Credential Credential
	// Proxy chooses a proxy; nil means none.
	Proxy ProxyFunc
	// Timeout bounds each request; 0 means 10 s.
	Timeout time.Duration
}

// Client calls the API server.
type Client struct {
	base  *url.URL
	http  *http.Client
	token string
}

// New builds a client. It does no I/O.
func New(o Options) (*Client, error) {
	u, err := url.Parse(o.Server)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("API server URL %q: want https://host[:port]", o.Server)
	}
	pool := x509.NewCertPool()
	for _, c := range o.CAs {
		pool.AddCert(c)
	}
	tlsConfig := &tls.Config{RootCAs: pool, ServerName: o.TLSServerName, MinVersion: tls.VersionTLS12}
	if o.Credential.Certificate != nil {
		tlsConfig.Certificates = []tls.Certificate{*o.Credential.Certificate}
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	tr := &http.Transport{
		Proxy:               o.Proxy,
		TLSClientConfig:     tlsConfig,
		DialContext:         (&net.Dialer{Timeout: timeout}).DialContext,
		TLSHandshakeTimeout: timeout,
		ForceAttemptHTTP2:   true,
	}
	// Redirects are never followed: the API server does not redirect these
	// calls, and following one could carry the credential elsewhere (to
	// plain HTTP even); the 3xx comes back as a StatusError.
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Client{base: u, http: &http.Client{Transport: tr, Timeout: timeout, CheckRedirect: noRedirect}, token: o.Credential.Token}, nil
}

// Response is what every call returns besides its body.
type Response struct {
	Code int
	// Date is the server's Date header (zero when absent).
	Date time.Time
	// Sent and Received bracket the request on the local clock.
	Sent, Received time.Time
}

// StatusError is an API error: the HTTP code and the Status body.
type StatusError struct {
	Code   int
	Status Status
}

func (e *StatusError) Error() string {
	msg := e.Status.Message
	if msg == "" {
		msg = e.Status.Reason
	}
	if msg == "" {
		return fmt.Sprintf("%d %s", e.Code, http.StatusText(e.Code))
	}
	return fmt.Sprintf("%d %s: %s", e.Code, http.StatusText(e.Code), msg)
}

// IsStatus reports whether err is an API error with the given HTTP code.
func IsStatus(err error, code int) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Code == code
}

// Do sends a request and decodes a 2xx JSON answer into out (when not nil).
func (c *Client) Do(ctx context.Context, method, path string, in, out any) (Response, error) {
	req, err := c.request(ctx, method, path, in)
	if err != nil {
		return Response{}, err
	}
	res := Response{Sent: time.Now()}
	resp, err := c.http.Do(req)
	res.Received = time.Now()
	if err != nil {
		return res, err
	}
	defer resp.Body.Close()
	res.Code = resp.StatusCode
	if d, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
		res.Date = d
	}
	return res, decode(resp, method, path, out)
}

// request builds a request with the credential's token and a JSON body.
func (c *Client) request(ctx context.Context, method, path string, in any) (*http.Request, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	u := *c.base
	p, q, _ := strings.Cut(path, "?")
	u.Path = strings.TrimSuffix(u.Path, "/") + p
	u.RawQuery = q
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return req, nil
}

// decode reads an answer: a Status error unless 2xx, else JSON into out.
func decode(resp *http.Response, method, path string, out any) error {
	data, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		se := &StatusError{Code: resp.StatusCode}
		_ = json.Unmarshal(data, &se.Status)
		return se
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("%s %s: decode answer: %w", method, path, err)
		}
	}
	return nil
}

// Version returns GET /version.
func (c *Client) Version(ctx context.Context) (VersionInfo, Response, error) {
	var v VersionInfo
	res, err := c.Do(ctx, http.MethodGet, "/version", nil, &v)
	return v, res, err
}

// SelfSubjectReview asks who this client's credential is.
func (c *Client) SelfSubjectReview(ctx context.Context) (UserInfo, error) {
	in := SelfSubjectReview{TypeMeta: TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "SelfSubjectReview"}}
	var out SelfSubjectReview
	_, err := c.Do(ctx, http.MethodPost, "/apis/authentication.k8s.io/v1/selfsubjectreviews", in, &out)
	return out.Status.UserInfo, err
}

// Node returns the Node called name.
func (c *Client) Node(ctx context.Context, name string) (Node, error) {
	var n Node
	_, err := c.Do(ctx, http.MethodGet, "/api/v1/nodes/"+url.PathEscape(name), nil, &n)
	return n, err
}

// CSRs lists the certificate signing requests of one signer.
func (c *Client) CSRs(ctx context.Context, signer string) ([]CertificateSigningRequest, error) {
	var l CertificateSigningRequestList
	q := url.Values{"fieldSelector": {"spec.signerName=" + signer}}
	_, err := c.Do(ctx, http.MethodGet, "/apis/certificates.k8s.io/v1/certificatesigningrequests?"+q.Encode(), nil, &l)
	return l.Items, err
}
