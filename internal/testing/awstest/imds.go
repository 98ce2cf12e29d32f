package awstest

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// IMDS paths, relative to /latest/.
const (
	PathToken    = "api/token"
	PathUserData = "user-data"
	PathIdentity = "dynamic/instance-identity/document"
)

// IMDS is a minimal in-process instance metadata service for fast unit tests:
// IMDSv2 session tokens, fixed answers per path, 404 for unknown paths, and
// accounting of how many requests were in flight at once (to prove
// parallelism). Actions of Behavior are paths relative to /latest/, e.g.
// "meta-data/mac"; the token request counts as "api/token".
type IMDS struct {
	Behavior
	// URL is the endpoint, for AWS_EC2_METADATA_SERVICE_ENDPOINT.
	URL string
	// RequireToken answers 401 to requests without a valid session token.
	RequireToken bool

	mu          sync.Mutex
	values      map[string]string
	inFlight    int
	maxInFlight int
}

// imdsToken is the session token the server hands out.
const imdsToken = "awstest-imds-token"

// NewIMDS starts an IMDS server that lives until the test ends. It requires
// session tokens (IMDSv2 only).
func NewIMDS(t testing.TB) *IMDS {
	s := &IMDS{RequireToken: true, values: map[string]string{}}
	s.URL = startLoopback(t, http.HandlerFunc(s.serve)).URL
	return s
}

// Set makes path (relative to /latest/) answer value.
func (s *IMDS) Set(path, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.values[path] = value
}

// SetIdentity serves an identity document with these values.
func (s *IMDS) SetIdentity(instanceID, region, instanceType, az string) {
	doc, _ := json.Marshal(map[string]string{
		"instanceId": instanceID, "region": region, "instanceType": instanceType,
		"availabilityZone": az, "accountId": "111122223333", "architecture": "x86_64",
		"imageId": "ami-0123456789abcdef0", "privateIp": "10.0.0.5", "version": "2017-09-30",
		"pendingTime": "2026-01-01T00:00:00Z",
	})
	s.Set(PathIdentity, string(doc))
}

// MaxInFlight returns the largest number of metadata requests (token
// requests excluded) the server was answering at the same time.
func (s *IMDS) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

// ResetInFlight forgets the in-flight high-water mark.
func (s *IMDS) ResetInFlight() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxInFlight = s.inFlight
}

func (s *IMDS) serve(w http.ResponseWriter, r *http.Request) {
	path, ok := strings.CutPrefix(r.URL.Path, "/latest/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	if path == PathToken {
		s.serveToken(w, r)
		return
	}
	done := s.enter()
	defer done()
	if fault, failed := s.begin(r.Context(), path); failed {
		http.Error(w, fault.Message, fault.Status)
		return
	}
	w = s.body(r, path, w)
	if s.RequireToken && r.Header.Get("X-aws-ec2-metadata-token") != imdsToken {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	s.mu.Lock()
	v, known := s.values[path]
	s.mu.Unlock()
	if !known {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	w.Write([]byte(v))
}

func (s *IMDS) serveToken(w http.ResponseWriter, r *http.Request) {
	if fault, failed := s.begin(r.Context(), PathToken); failed {
		http.Error(w, fault.Message, fault.Status)
		return
	}
	w = s.body(r, PathToken, w)
	ttl := r.Header.Get("X-aws-ec2-metadata-token-ttl-seconds")
	if r.Method != http.MethodPut || ttl == "" {
		http.Error(w, "Bad Request", http.StatusBadRequest)
		return
	}
	w.Header().Set("X-aws-ec2-metadata-token-ttl-seconds", ttl)
	w.Write([]byte(imdsToken))
}

// enter counts a request in flight until the returned function is called.
func (s *IMDS) enter() func() {
	s.mu.Lock()
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}
}
