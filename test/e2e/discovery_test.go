//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// discoveryCacheDir is where the agent keeps eks:DescribeCluster answers
// (persistent, so that a reboot does not call EKS again). The suite
// refuses to start when it exists and removes it after every scenario.
const discoveryCacheDir = "/var/lib/nodeboot"

// discoveryCacheFile is the agent's cached DescribeCluster answer for a
// cluster, as a node path.
func discoveryCacheFile(cluster string) string {
	return filepath.Join(discoveryCacheDir, "cluster-"+cluster+".json")
}

// isAgentState reports node paths that hold the agent's own state rather
// than rendered configuration: they differ between runs (timestamps), so
// they are checked for presence, not compared byte for byte.
func isAgentState(nodePath string) bool {
	return strings.HasPrefix(nodePath, discoveryCacheDir+"/")
}

// coldBootFaults are what EKS answers the first DescribeCluster calls of every agent
// run with: a throttle (429 ThrottlingException), then a server error
// (500). The agent must retry through both.
var coldBootFaults = []awstest.Fault{awstest.EKSThrottling, awstest.EKSServerError}

// wantColdBootStatuses are the HTTP statuses of one cold run's
// DescribeCluster attempts: the two faults, then the answer.
var wantColdBootStatuses = []int{http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusOK}

// eksAPI is the EKS API a cluster-name-only node discovers its cluster
// from: the awstest EKS stub behind a loopback reverse proxy that records
// when each request came and how it was answered.
type eksAPI struct {
	stub *awstest.EKS
	// URL is the recording proxy, for AWS_ENDPOINT_URL_EKS.
	URL string
	// faults are queued before every agent run.
	faults []awstest.Fault

	mu   sync.Mutex
	seen []eksRequest
}

// eksRequest is one request the agent sent to EKS.
type eksRequest struct {
	method, path string
	status       int
	start, end   time.Time
}

// startEKS serves cluster through the EKS stub and the recording proxy
// until the test ends; faults are answered first on every agent run.
func startEKS(t *testing.T, cluster awstest.Cluster, faults ...awstest.Fault) *eksAPI {
	t.Helper()
	e := &eksAPI{stub: awstest.NewEKS(t), faults: faults}
	e.stub.AddCluster(cluster)
	upstream, err := url.Parse(e.stub.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(upstream)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		start := time.Now()
		proxy.ServeHTTP(rec, r)
		e.record(eksRequest{method: r.Method, path: r.URL.Path, status: rec.status, start: start, end: time.Now()})
	}))
	t.Cleanup(srv.Close)
	e.URL = srv.URL
	return e
}

func (e *eksAPI) record(r eksRequest) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seen = append(e.seen, r)
}

// mark returns a position in the request log, for since.
func (e *eksAPI) mark() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.seen)
}

// since returns the requests recorded after mark.
func (e *eksAPI) since(mark int) []eksRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.seen[mark:])
}

// armFaults queues the faults for the coming agent run. Faults a run does
// not consume (a warm boot that never calls EKS) stay queued; every run
// checks its own requests, so leftovers cannot hide a wrong call.
func (e *eksAPI) armFaults() {
	if len(e.faults) > 0 {
		e.stub.FailNext(awstest.ActionDescribeCluster, e.faults...)
	}
}

// statusRecorder remembers the status code a handler answered with.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// retryBackoff is the time the agent spent between its attempts: from the
// end of one answer to the start of the next request (the SDK's backoff
// sleep plus a negligible re-signing).
func retryBackoff(reqs []eksRequest) time.Duration {
	var d time.Duration
	for i := 1; i < len(reqs); i++ {
		d += reqs[i].start.Sub(reqs[i-1].end)
	}
	return d
}

// assertColdDiscovery checks one cold agent run's DescribeCluster attempts:
// exactly the throttle, the server error and the successful answer, all
// for the cluster the user data names.
func assertColdDiscovery(t *testing.T, run string, reqs []eksRequest) {
	t.Helper()
	for i, r := range reqs {
		if r.method != http.MethodGet || r.path != "/clusters/"+clusterName {
			t.Errorf("%s: EKS request %d is %s %s, want GET /clusters/%s (DescribeCluster)", run, i+1, r.method, r.path, clusterName)
		}
	}
	if statuses := statusesOf(reqs); !slices.Equal(statuses, wantColdBootStatuses) {
		t.Errorf("%s: DescribeCluster answered %v, want %v (throttled, server error, answer)", run, statuses, wantColdBootStatuses)
	}
}

// discoveryCacheEntry is the part of the agent's cache file the suite
// checks.
type discoveryCacheEntry struct {
	SavedAt time.Time `json:"savedAt"`
	Cluster struct {
		Name            string `json:"name"`
		Endpoint        string `json:"endpoint"`
		CA              []byte `json:"certificateAuthority"`
		ServiceIPv4CIDR string `json:"serviceIPv4CIDR"`
	} `json:"cluster"`
}

// assertDiscoveryCache checks the cache file under root: private to root
// and holding what the EKS stub answered.
func assertDiscoveryCache(t *testing.T, root string, c *cluster) {
	t.Helper()
	path := filepath.Join(root, discoveryCacheFile(clusterName))
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("the agent did not write the discovery cache: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %s, want 0600 (it holds the cluster CA)", path, fi.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var e discoveryCacheEntry
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	got := e.Cluster
	if got.Name != clusterName || got.Endpoint != c.server || string(got.CA) != string(c.ca.certPEM) || got.ServiceIPv4CIDR != serviceCIDR {
		t.Errorf("%s holds cluster %q endpoint %q service CIDR %q (CA matches: %v); want %q %q %q and the cluster CA",
			path, got.Name, got.Endpoint, got.ServiceIPv4CIDR, string(got.CA) == string(c.ca.certPEM), clusterName, c.server, serviceCIDR)
	}
	if age := time.Since(e.SavedAt); age < 0 || age > 10*time.Minute {
		t.Errorf("%s was saved at %s, not during this run", path, e.SavedAt)
	}
}

// wantClusterDNS is the cluster DNS address the service CIDR implies (the
// .10 of the range, as bootstrap.sh derives it).
const wantClusterDNS = "10.96.0.10"

// compareWithDryRun returns the rendered files (agent state aside) that
// differ between the dry run and the node.
func compareWithDryRun(n *node) ([]string, error) {
	var differ []string
	for _, p := range n.written {
		real, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("the dry run wrote %s but the real run did not: %w", p, err)
		}
		if isAgentState(p) {
			continue
		}
		dry, err := os.ReadFile(filepath.Join(n.dryRoot, p))
		if err != nil {
			return nil, err
		}
		if string(real) != string(dry) {
			differ = append(differ, p)
		}
	}
	return differ, nil
}

// assertEKSDiscovery checks the cluster-name-only join: each cold agent run
// (the dry run under a scratch root, then the real one) retried
// DescribeCluster through the throttle and the server error, exactly 3
// calls; the answer was cached and is what the node was rendered from; and
// a second boot renders the same files from the cache without calling EKS.
func assertEKSDiscovery(t *testing.T, c *cluster, n *node, agent nodebootAgent, sr *scenarioReport) {
	t.Helper()
	for _, run := range []struct {
		name string
		res  agentResult
	}{{"dry run", n.dryRunResult}, {"real run", n.agentRun}} {
		assertColdDiscovery(t, run.name, run.res.eks)
		if got := run.res.describeClusterCalls; got != len(wantColdBootStatuses) {
			t.Errorf("%s: the EKS stub counted %d DescribeCluster calls, want %d (2 failures + 1 success)", run.name, got, len(wantColdBootStatuses))
		}
	}
	t.Logf("real run: DescribeCluster %v, retry backoff %s", statusesOf(n.agentRun.eks), retryBackoff(n.agentRun.eks).Round(time.Millisecond))
	assertDiscoveryCache(t, "/", c)
	if dns := n.rendered.config.ClusterDNS; !slices.Equal(dns, []string{wantClusterDNS}) {
		t.Errorf("kubelet clusterDNS = %v, want [%s] (from the service CIDR DescribeCluster answered)", dns, wantClusterDNS)
	}

	// A reboot: the config phase runs again on the same node.
	cacheBefore, err := os.ReadFile(discoveryCacheFile(clusterName))
	if err != nil {
		t.Fatal(err)
	}
	ec2Before := agent.ec2.TotalCalls()
	res, err := agent.render(t.Context(), "/")
	if err != nil {
		t.Fatalf("second boot: %v", err)
	}
	sr.timing("agent_rerun_files_written", res.took)
	t.Logf("second boot rendered the node in %s; its output:\n%s", res.took.Round(time.Microsecond), res.output)
	if len(res.eks) != 0 || res.describeClusterCalls != 0 {
		t.Errorf("second boot called EKS %d times (%v); want none: the discovery cache answers", res.describeClusterCalls, statusesOf(res.eks))
	}
	if got := agent.ec2.TotalCalls() - ec2Before; got != 1 || agent.ec2.Calls(awstest.ActionDescribeInstances) != 3 {
		t.Errorf("second boot made %d EC2 calls, want exactly 1 DescribeInstances (the node name is not cached)", got)
	}
	cacheAfter, err := os.ReadFile(discoveryCacheFile(clusterName))
	if err != nil {
		t.Fatal(err)
	}
	if string(cacheAfter) != string(cacheBefore) {
		t.Errorf("second boot rewrote %s; want it read, not refreshed", discoveryCacheFile(clusterName))
	}
	differ, err := compareWithDryRun(n)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range differ {
		t.Errorf("second boot: %s differs from the first boot's", p)
	}
}

func statusesOf(reqs []eksRequest) []int {
	out := make([]int, len(reqs))
	for i, r := range reqs {
		out[i] = r.status
	}
	return out
}
