// Command awsauthoracle answers, with EKS's authenticator's own code, how
// its EKSConfigMap backend reads an aws-auth ConfigMap and whom it maps an
// IAM principal to. test/oracle (TestAWSAuthAgreesWithAuthenticator) feeds
// it the same ConfigMaps it feeds nodeboot's access check and requires the
// same answers.
//
// The authenticator logs (logrus) on stderr. It is built in this module
// (whose go.mod it leaves as the authenticator's pins), so it links the authenticator and the
// dependency versions (apimachinery's YAML, yaml.v2, aws-sdk-go's ARN
// parser) of the aws-iam-authenticator binary the e2e suite runs.
//
// Protocol: one JSON request a line on stdin, one JSON answer a line on
// stdout. The ConfigMap reaches the backend's real MapStore the way it does
// in a cluster: through a watch, served by a local stub of the API server's
// watch endpoint (ParseMap, saveMap and the lookups are the authenticator's).
// What this program composes itself is only the order in which the
// authenticator's server tries a backend (its handler.doMapping, which is
// unexported): the backend's mapping, else mapAccounts, else not mapped.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/aws-iam-authenticator/pkg/arn"
	"sigs.k8s.io/aws-iam-authenticator/pkg/config"
	"sigs.k8s.io/aws-iam-authenticator/pkg/mapper/configmap"
	"sigs.k8s.io/aws-iam-authenticator/pkg/token"
)

// request is one ConfigMap (nil Data: no aws-auth at all) and the
// principals (STS caller ARNs) to look up in it.
type request struct {
	Data       map[string]string `json:"data"`
	Principals []string          `json:"principals"`
}

type answer struct {
	Parse   parsed   `json:"parse"`
	Lookups []lookup `json:"lookups"`
	Error   string   `json:"error,omitempty"`
}

// parsed is what configmap.ParseMap returns.
type parsed struct {
	Roles    []config.RoleMapping `json:"roles"`
	Users    []config.UserMapping `json:"users"`
	Accounts []string             `json:"accounts"`
	Err      string               `json:"err,omitempty"`
}

// lookup is the authenticator's answer for one principal. Results lists
// every distinct answer seen over repeated lookups: the MapStore keeps
// mappings in Go maps and returns the first match of a random iteration,
// so two entries that both match make the answer vary.
type lookup struct {
	Principal      string   `json:"principal"`
	Kind           int      `json:"kind"`
	Canonical      string   `json:"canonical,omitempty"`
	CanonicalError string   `json:"canonicalError,omitempty"`
	Results        []result `json:"results,omitempty"`
}

type result struct {
	Mapped   bool     `json:"mapped"`
	Via      string   `json:"via,omitempty"`
	Username string   `json:"username,omitempty"`
	Groups   []string `json:"groups,omitempty"`
}

// repeats is how often a lookup is repeated to see every matching entry:
// a small Go map's iteration starts at one of 8 slots, so an entry can come
// first as rarely as 1 time in 8; (7/8)^256 is about 1e-15.
const repeats = 256

func main() {
	stub, err := startStub()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		var ans answer
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			ans.Error = err.Error()
		} else {
			ans, err = stub.answer(req)
			if err != nil {
				ans.Error = err.Error()
			}
		}
		if err := out.Encode(ans); err != nil {
			os.Exit(1)
		}
	}
}

// stub serves the watch of kube-system/aws-auth, one URL prefix per
// request (/c/N), so that every request gets a MapStore of its own.
type stub struct {
	url   string
	mu    sync.Mutex
	next  int
	cases map[int]*watchCase
}

// watchCase is one MapStore's watch: the first watch gets the ConfigMap,
// the second (the store watches again once the first stream ends, after
// saving the map) says the map is loaded and ends the store's loop.
type watchCase struct {
	data    map[string]string
	watches int
	loaded  chan struct{}
	stop    chan struct{}
}

func startStub() (*stub, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &stub{url: "http://" + l.Addr().String(), cases: map[int]*watchCase{}}
	go func() { _ = http.Serve(l, s) }()
	return s, nil
}

func (s *stub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var n int
	if _, err := fmt.Sscanf(r.URL.Path, "/c/%d/", &n); err != nil || r.URL.Query().Get("watch") != "true" {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	c := s.cases[n]
	if c == nil {
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	c.watches++
	first := c.watches == 1
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if !first {
		close(c.stop)
		close(c.loaded)
		return
	}
	if c.data != nil {
		_ = json.NewEncoder(w).Encode(map[string]any{"type": "ADDED", "object": map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "aws-auth", "namespace": "kube-system", "resourceVersion": "1"},
			"data":     c.data,
		}})
	}
}

func (s *stub) answer(req request) (answer, error) {
	var ans answer
	if req.Data != nil {
		users, roles, accounts, err := configmap.ParseMap(req.Data)
		ans.Parse = parsed{Roles: roles, Users: users, Accounts: accounts}
		if err != nil {
			ans.Parse.Err = err.Error()
		}
	}
	m, err := s.loadedMapper(req.Data)
	if err != nil {
		return ans, err
	}
	for _, p := range req.Principals {
		ans.Lookups = append(ans.Lookups, lookUp(m, p))
	}
	return ans, nil
}

// loadedMapper returns the authenticator's EKSConfigMap backend once it
// has loaded data through its watch.
func (s *stub) loadedMapper(data map[string]string) (*configmap.ConfigMapMapper, error) {
	s.mu.Lock()
	s.next++
	n := s.next
	c := &watchCase{data: data, loaded: make(chan struct{}), stop: make(chan struct{})}
	s.cases[n] = c
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.cases, n)
		s.mu.Unlock()
	}()
	ms, err := configmap.New(fmt.Sprintf("%s/c/%d", s.url, n), "")
	if err != nil {
		return nil, err
	}
	m := &configmap.ConfigMapMapper{MapStore: ms}
	if err := m.Start(c.stop); err != nil {
		return nil, err
	}
	select {
	case <-c.loaded:
		return m, nil
	case <-time.After(time.Minute): // only a hang
		return nil, fmt.Errorf("the MapStore never loaded the ConfigMap")
	}
}

// lookUp canonicalises a caller ARN as the token verifier does and maps it
// as the server does with this one backend.
func lookUp(m *configmap.ConfigMapMapper, principal string) lookup {
	l := lookup{Principal: principal}
	kind, canonical, err := arn.Canonicalize(principal)
	l.Kind = int(kind)
	if err != nil {
		l.CanonicalError = err.Error()
		return l
	}
	l.Canonical = canonical
	// STS answers with the account; a canonical ARN is a parsed ARN, whose
	// fifth field is the account.
	id := &token.Identity{ARN: principal, CanonicalARN: canonical, AccountID: strings.SplitN(canonical, ":", 6)[4]}
	seen := map[string]result{}
	for range repeats {
		r := mapOnce(m, id)
		b, _ := json.Marshal(r)
		seen[string(b)] = r
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		l.Results = append(l.Results, seen[k])
	}
	return l
}

// mapOnce is the server's doMapping for a chain of this one backend.
func mapOnce(m *configmap.ConfigMapMapper, id *token.Identity) result {
	if mapping, err := m.Map(id); err == nil {
		via := "role"
		if _, rerr := m.RoleMapping(strings.ToLower(id.CanonicalARN)); rerr != nil {
			via = "user"
		}
		return result{Mapped: true, Via: via, Username: mapping.Username, Groups: mapping.Groups}
	}
	if m.IsAccountAllowed(id.AccountID) {
		return result{Mapped: true, Via: "account", Username: id.CanonicalARN, Groups: []string{}}
	}
	return result{}
}
