// Package cri asks a container runtime's CRI socket for its version and
// runtime configuration. A CRI call is gRPC: an HTTP/2 POST carrying one
// length-prefixed protobuf message, answered with one message and a
// grpc-status trailer. This package makes that one unary call with the
// standard library's unencrypted HTTP/2 (prior knowledge, as gRPC speaks it
// on a unix socket) and its own protobuf field codec instead of
// google.golang.org/grpc and k8s.io/cri-api, which would add about 6 MB to a
// binary that runs on every node's boot path (see docs/doctor.md), or
// golang.org/x/net/http2, whose packages initialise at every start. Its
// tests run a real gRPC server built from k8s.io/cri-api.
package cri

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// CRI services and methods.
const (
	runtimeServiceV1       = "runtime.v1.RuntimeService"
	runtimeServiceV1alpha2 = "runtime.v1alpha2.RuntimeService"
)

// gRPC status codes this package tells apart.
const (
	codeOK            = 0
	codeUnimplemented = 12
)

// ErrUnimplemented is wrapped when the runtime does not serve a method.
var ErrUnimplemented = errors.New("not implemented by the runtime")

// StatusError is a gRPC error status.
type StatusError struct {
	Code    int
	Message string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("gRPC status %d: %s", e.Code, e.Message)
}

// Unwrap maps Unimplemented to ErrUnimplemented.
func (e *StatusError) Unwrap() error {
	if e.Code == codeUnimplemented {
		return ErrUnimplemented
	}
	return nil
}

// Version is the runtime's answer to RuntimeService/Version.
type Version struct {
	// APIVersion is the CRI API version the answer came from (v1 or v1alpha2).
	APIVersion        string `json:"apiVersion"`
	RuntimeName       string `json:"runtimeName"`
	RuntimeVersion    string `json:"runtimeVersion"`
	RuntimeAPIVersion string `json:"runtimeApiVersion"`
}

// Client calls one CRI socket.
type Client struct {
	http *http.Client
}

// New returns a client for a unix socket path or unix:// endpoint. It does
// no I/O.
func New(endpoint string, timeout time.Duration) *Client {
	path := strings.TrimPrefix(endpoint, "unix://")
	// h2c with prior knowledge: gRPC over a unix socket has no TLS and no
	// HTTP/1.1 upgrade, so HTTP/2 is the only protocol the transport offers.
	var protocols http.Protocols
	protocols.SetUnencryptedHTTP2(true)
	tr := &http.Transport{
		Protocols: &protocols,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", path)
		},
		DisableCompression: true,
	}
	return &Client{http: &http.Client{Transport: tr, Timeout: timeout}}
}

// Version calls RuntimeService/Version (v1, falling back to v1alpha2 for
// runtimes that serve only that).
func (c *Client) Version(ctx context.Context) (Version, error) {
	req := appendStringField(nil, 1, "v1")
	resp, err := c.call(ctx, runtimeServiceV1+"/Version", req)
	api := "v1"
	if errors.Is(err, ErrUnimplemented) {
		api = "v1alpha2"
		resp, err = c.call(ctx, runtimeServiceV1alpha2+"/Version", req)
	}
	if err != nil {
		return Version{}, err
	}
	v := Version{APIVersion: api}
	err = eachString(resp, func(field fieldNumber, s string) {
		switch field {
		case 2:
			v.RuntimeName = s
		case 3:
			v.RuntimeVersion = s
		case 4:
			v.RuntimeAPIVersion = s
		}
	})
	return v, err
}

// Cgroup drivers RuntimeConfig reports.
const (
	CgroupDriverSystemd  = "systemd"
	CgroupDriverCgroupfs = "cgroupfs"
)

// CgroupDriver calls RuntimeService/RuntimeConfig (containerd ≥ 1.7,
// CRI-O) for the runtime's cgroup driver. Older runtimes answer
// ErrUnimplemented.
func (c *Client) CgroupDriver(ctx context.Context) (string, error) {
	resp, err := c.call(ctx, runtimeServiceV1+"/RuntimeConfig", nil)
	if err != nil {
		return "", err
	}
	// RuntimeConfigResponse{linux: LinuxRuntimeConfiguration{cgroup_driver}};
	// the enum's zero value, SYSTEMD, is not written.
	driver := CgroupDriverSystemd
	err = eachField(resp, func(field fieldNumber, typ wireType, b []byte) error {
		if field != 1 || typ != bytesType {
			return nil
		}
		return eachField(b, func(field fieldNumber, typ wireType, b []byte) error {
			if field == 1 && typ == varintType {
				if v, n := consumeVarint(b); n > 0 && v == 1 {
					driver = CgroupDriverCgroupfs
				}
			}
			return nil
		})
	})
	return driver, err
}

// call makes one unary gRPC call and returns the answer message.
func (c *Client) call(ctx context.Context, method string, msg []byte) ([]byte, error) {
	frame := make([]byte, 5, 5+len(msg))
	binary.BigEndian.PutUint32(frame[1:], uint32(len(msg)))
	frame = append(frame, msg...)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://localhost/"+method, bytes.NewReader(frame))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("TE", "trailers")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %s", method, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	// A failed call may come as headers only ("trailers-only").
	if err := grpcStatus(resp.Header, resp.Trailer); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if len(body) < 5 || body[0] != 0 {
		return nil, fmt.Errorf("%s: answer is not one uncompressed gRPC message", method)
	}
	n := binary.BigEndian.Uint32(body[1:5])
	if int(n) != len(body)-5 {
		return nil, fmt.Errorf("%s: gRPC message of %d bytes, %d received", method, n, len(body)-5)
	}
	return body[5:], nil
}

func grpcStatus(header, trailer http.Header) error {
	s := trailer.Get("Grpc-Status")
	msg := trailer.Get("Grpc-Message")
	if s == "" {
		s, msg = header.Get("Grpc-Status"), header.Get("Grpc-Message")
	}
	if s == "" {
		return errors.New("no grpc-status in the answer")
	}
	code, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("grpc-status %q", s)
	}
	if code != codeOK {
		return &StatusError{Code: code, Message: msg}
	}
	return nil
}
