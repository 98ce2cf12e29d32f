package ec2

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

const testInstanceID = "i-0123456789abcdef0"

// newTestClient isolates the environment, starts an EC2 stub reached via
// AWS_ENDPOINT_URL_EC2 and returns a client with millisecond backoffs.
func newTestClient(t *testing.T, attempts int, wait NameWait) (*Client, *awstest.EC2) {
	t.Helper()
	return newBoundedClient(t, attempts, 0, wait)
}

// newBoundedClient is newTestClient with each attempt bounded by
// requestTimeout (0: awsconfig's default).
func newBoundedClient(t *testing.T, attempts int, requestTimeout time.Duration, wait NameWait) (*Client, *awstest.EC2) {
	t.Helper()
	awstest.IsolateEnv(t)
	stub := awstest.NewEC2(t)
	t.Setenv("AWS_ENDPOINT_URL_EC2", stub.URL)
	return clientFor(t, awsconfig.Options{MaxAttempts: attempts, RequestTimeout: requestTimeout}, wait), stub
}

// clientFor returns a client on the endpoint the environment names, in
// us-west-2 with millisecond backoffs; o sets the attempts and their
// timeout.
func clientFor(t *testing.T, o awsconfig.Options, wait NameWait) *Client {
	t.Helper()
	o.Region, o.BaseDelay, o.MaxDelay = "us-west-2", time.Millisecond, 5*time.Millisecond
	cfg, err := awsconfig.LoadNode(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	return New(cfg, wait)
}

var fastWait = NameWait{Timeout: 2 * time.Second, BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond}

func TestPrivateDNSName(t *testing.T) {
	const name = "ip-10-0-0-5.us-west-2.compute.internal"
	tests := []struct {
		name      string
		instance  awstest.Instance
		faults    []awstest.Fault
		want      string
		wantCalls int
		wantErr   string
	}{
		{
			name:      "name on first call",
			instance:  awstest.Instance{ID: testInstanceID, PrivateDNSName: name},
			want:      name,
			wantCalls: 1,
		},
		{
			name:      "empty name twice then present",
			instance:  awstest.Instance{ID: testInstanceID, PrivateDNSName: name, EmptyNameCalls: 2},
			want:      name,
			wantCalls: 3,
		},
		{
			name:      "throttled twice then success (SDK retries)",
			instance:  awstest.Instance{ID: testInstanceID, PrivateDNSName: name},
			faults:    []awstest.Fault{awstest.EC2Throttling, awstest.EC2Throttling},
			want:      name,
			wantCalls: 3,
		},
		{
			name:      "500 then success",
			instance:  awstest.Instance{ID: testInstanceID, PrivateDNSName: name},
			faults:    []awstest.Fault{awstest.EC2InternalError},
			want:      name,
			wantCalls: 2,
		},
		{
			name:      "bare 429 then success",
			instance:  awstest.Instance{ID: testInstanceID, PrivateDNSName: name},
			faults:    []awstest.Fault{awstest.TooManyRequests},
			want:      name,
			wantCalls: 2,
		},
		{
			name:     "instance not yet visible is polled",
			instance: awstest.Instance{ID: testInstanceID, PrivateDNSName: name},
			faults: []awstest.Fault{
				{Status: 400, Code: "InvalidInstanceID.NotFound", Message: "not yet"},
				{Status: 400, Code: "InvalidInstanceID.NotFound", Message: "not yet"},
			},
			want:      name,
			wantCalls: 3,
		},
		{
			name:      "access denied fails at once",
			instance:  awstest.Instance{ID: testInstanceID, PrivateDNSName: name},
			faults:    []awstest.Fault{{Status: 403, Code: "UnauthorizedOperation", Message: "You are not authorized"}},
			wantCalls: 1,
			wantErr:   "api error UnauthorizedOperation: You are not authorized",
		},
		{
			name:     "throttling exhausts the attempt budget",
			instance: awstest.Instance{ID: testInstanceID, PrivateDNSName: name},
			faults: []awstest.Fault{
				awstest.EC2Throttling, awstest.EC2Throttling, awstest.EC2Throttling, awstest.EC2Throttling,
			},
			wantCalls: 3,
			wantErr:   "ec2 DescribeInstances " + testInstanceID + ": gave up after 3 attempts",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, stub := newTestClient(t, 3, fastWait)
			stub.AddInstance(tc.instance)
			stub.FailNext(awstest.ActionDescribeInstances, tc.faults...)
			got, err := c.PrivateDNSName(t.Context(), testInstanceID)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatalf("PrivateDNSName: %v", err)
			}
			if got != tc.want {
				t.Errorf("name = %q, want %q", got, tc.want)
			}
			if n := stub.Calls(awstest.ActionDescribeInstances); n != tc.wantCalls {
				t.Errorf("DescribeInstances calls = %d, want %d", n, tc.wantCalls)
			}
		})
	}
}

func TestPrivateDNSNameWaitIsBounded(t *testing.T) {
	c, stub := newTestClient(t, 3, NameWait{Timeout: time.Second, BaseDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond})
	stub.AddInstance(awstest.Instance{ID: testInstanceID, PrivateDNSName: "never.shown", EmptyNameCalls: -1})
	start := time.Now()
	got, err := c.PrivateDNSName(t.Context(), testInstanceID)
	elapsed := time.Since(start)
	if !errors.Is(err, ErrNoPrivateDNSName) {
		t.Fatalf("error = %v, want ErrNoPrivateDNSName", err)
	}
	if got != "" {
		t.Errorf("name = %q, want empty", got)
	}
	// At least the timeout (load only makes it longer); the upper bound only
	// catches a wait that ignores its timeout.
	if elapsed < time.Second || elapsed > 30*time.Second {
		t.Errorf("wait took %s, want the 1s timeout (and never a hang)", elapsed)
	}
	// Polled again after an empty answer: at least two calls (each takes
	// milliseconds; the wait is a second).
	if calls := stub.Calls(awstest.ActionDescribeInstances); calls < 2 {
		t.Errorf("DescribeInstances calls = %d, want the wait to poll again", calls)
	}
	if !strings.Contains(err.Error(), "still no name after") {
		t.Errorf("error %q does not say how long it waited", err)
	}
}

// TestNameWaitEndingMidCallAfterAnAnswer: once a call has said that the
// instance has no name yet, a wait whose deadline interrupts a later call
// ended for want of a name, not for want of an answer.
func TestNameWaitEndingMidCallAfterAnAnswer(t *testing.T) {
	c, stub := newTestClient(t, 3, NameWait{Timeout: time.Second, BaseDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond})
	stub.AddInstance(awstest.Instance{ID: testInstanceID, EmptyNameCalls: -1})
	go func() { // once the first call has begun (it answers), later calls hang
		for stub.Calls(awstest.ActionDescribeInstances) == 0 {
			time.Sleep(time.Millisecond)
		}
		stub.Hang(awstest.ActionDescribeInstances)
	}()
	_, err := awstest.Within(t, func() (string, error) { return c.PrivateDNSName(t.Context(), testInstanceID) })
	if !errors.Is(err, ErrNoPrivateDNSName) || !strings.Contains(err.Error(), "still no name after") {
		t.Fatalf("error = %v, want ErrNoPrivateDNSName", err)
	}
}

func TestPrivateDNSNameCallerCancellationIsNotATimeout(t *testing.T) {
	c, stub := newTestClient(t, 3, fastWait)
	stub.AddInstance(awstest.Instance{ID: testInstanceID, EmptyNameCalls: -1})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := c.PrivateDNSName(ctx, testInstanceID)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrNoPrivateDNSName) {
		t.Fatalf("error = %v, want the caller's context.DeadlineExceeded only", err)
	}
}

func TestMaxAttemptsEnvironmentIsHonoured(t *testing.T) {
	tests := []struct {
		name      string
		env       string
		wantCalls int
	}{
		{name: "AWS_MAX_ATTEMPTS=1 means no retry", env: "1", wantCalls: 1},
		{name: "AWS_MAX_ATTEMPTS=5", env: "5", wantCalls: 5},
		{name: "caller budget when unset", env: "", wantCalls: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			awstest.IsolateEnv(t)
			stub := awstest.NewEC2(t)
			t.Setenv("AWS_ENDPOINT_URL_EC2", stub.URL)
			if tc.env != "" {
				t.Setenv("AWS_MAX_ATTEMPTS", tc.env)
			}
			c := clientFor(t, awsconfig.Options{MaxAttempts: 3}, fastWait)
			faults := make([]awstest.Fault, 10)
			for i := range faults {
				faults[i] = awstest.EC2InternalError
			}
			stub.FailNext(awstest.ActionDescribeInstanceTypes, faults...)
			_, err := c.InstanceTypeLimits(t.Context(), "m5.large")
			if err == nil {
				t.Fatal("InstanceTypeLimits succeeded against a failing API")
			}
			if n := stub.Calls(awstest.ActionDescribeInstanceTypes); n != tc.wantCalls {
				t.Errorf("calls = %d, want %d", n, tc.wantCalls)
			}
		})
	}
}

func TestInstanceTypeLimits(t *testing.T) {
	tests := []struct {
		name    string
		it      awstest.InstanceType
		ask     string
		want    Limits
		wantErr error
	}{
		{
			name: "single card",
			it:   awstest.InstanceType{Name: "m5.large", Hypervisor: "nitro", VCPUs: 2, MaxENIs: 3, IPv4PerENI: 10},
			ask:  "m5.large",
			want: Limits{DefaultENIs: 3, IPv4PerENI: 10, VCPUs: 2, Hypervisor: "nitro"},
		},
		{
			name: "multi card counts the default card only",
			it: awstest.InstanceType{Name: "p5.48xlarge", Hypervisor: "nitro", VCPUs: 192, MaxENIs: 64, IPv4PerENI: 50,
				CardENIs: []int{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
			ask:  "p5.48xlarge",
			want: Limits{DefaultENIs: 2, IPv4PerENI: 50, VCPUs: 192, Hypervisor: "nitro"},
		},
		{
			name: "default card other than zero",
			it:   awstest.InstanceType{Name: "x9.test", Hypervisor: "xen", VCPUs: 4, MaxENIs: 12, IPv4PerENI: 15, DefaultCard: 1, CardENIs: []int{4, 8}},
			ask:  "x9.test",
			want: Limits{DefaultENIs: 8, IPv4PerENI: 15, VCPUs: 4, Hypervisor: "xen"},
		},
		{
			name: "bare metal has no hypervisor",
			it:   awstest.InstanceType{Name: "m5.metal", VCPUs: 96, MaxENIs: 15, IPv4PerENI: 50},
			ask:  "m5.metal",
			want: Limits{DefaultENIs: 15, IPv4PerENI: 50, VCPUs: 96},
		},
		{
			name: "accelerators",
			it:   awstest.InstanceType{Name: "g4dn.xlarge", Hypervisor: "nitro", VCPUs: 4, MaxENIs: 3, IPv4PerENI: 10, NVIDIAGPUs: 1},
			ask:  "g4dn.xlarge",
			want: Limits{DefaultENIs: 3, IPv4PerENI: 10, VCPUs: 4, Hypervisor: "nitro", NVIDIAGPUs: 1},
		},
		{
			name: "neuron devices",
			it:   awstest.InstanceType{Name: "inf2.xlarge", Hypervisor: "nitro", VCPUs: 4, MaxENIs: 4, IPv4PerENI: 15, NeuronDevices: 1},
			ask:  "inf2.xlarge",
			want: Limits{DefaultENIs: 4, IPv4PerENI: 15, VCPUs: 4, Hypervisor: "nitro", NeuronDevices: 1},
		},
		{
			name:    "unknown type",
			it:      awstest.InstanceType{Name: "m5.large", MaxENIs: 3, IPv4PerENI: 10},
			ask:     "zz9.huge",
			wantErr: ErrUnknownInstanceType,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, stub := newTestClient(t, 3, fastWait)
			stub.AddInstanceType(tc.it)
			got, err := c.InstanceTypeLimits(t.Context(), tc.ask)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error = %v, want %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("limits = %+v, want %+v", got, tc.want)
			}
			if n := stub.Calls(awstest.ActionDescribeInstanceTypes); n != 1 {
				t.Errorf("calls = %d, want 1", n)
			}
			reqs := stub.Requests()
			if len(reqs) != 1 || reqs[0].Get("InstanceType.1") != tc.ask || reqs[0].Get("Version") != "2016-11-15" {
				t.Errorf("requests = %v, want one DescribeInstanceTypes for %s", reqs, tc.ask)
			}
		})
	}
}

// TestInstanceSecurityGroups reads an instance's groups and their rules
// through the SDK from the EC2 stub.
func TestInstanceSecurityGroups(t *testing.T) {
	c, stub := newTestClient(t, 3, fastWait)
	stub.AddInstance(awstest.Instance{ID: "i-1", InstanceType: "m5.large", SecurityGroups: []string{"sg-node", "sg-extra"}})
	stub.AddSecurityGroup(awstest.SecurityGroup{ID: "sg-node", Name: "nodes",
		Ingress: []awstest.Permission{{Protocol: "tcp", FromPort: 10250, ToPort: 10250, Groups: []string{"sg-cluster"}}},
		Egress:  []awstest.Permission{{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}}}})
	stub.AddSecurityGroup(awstest.SecurityGroup{ID: "sg-extra", Name: "extra"})
	got, err := c.InstanceSecurityGroups(t.Context(), "i-1")
	if err != nil {
		t.Fatal(err)
	}
	want := []SecurityGroup{
		{ID: "sg-node", Name: "nodes", Ingress: []Permission{{Protocol: "tcp", FromPort: 10250, ToPort: 10250, Groups: []string{"sg-cluster"}}},
			Egress: []Permission{{Protocol: "-1", CIDRs: []string{"0.0.0.0/0"}}}},
		{ID: "sg-extra", Name: "extra", Ingress: []Permission{}, Egress: []Permission{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("groups\n got %+v\nwant %+v", got, want)
	}
	if _, err := c.SecurityGroups(t.Context(), []string{"sg-missing"}); err == nil || !strings.Contains(err.Error(), "InvalidGroup.NotFound") {
		t.Errorf("unknown group: %v", err)
	}
}

func TestLimitsNetworkLimits(t *testing.T) {
	got := Limits{DefaultENIs: 3, IPv4PerENI: 10, VCPUs: 2, Hypervisor: "nitro"}.NetworkLimits()
	if got.DefaultENIs != 3 || got.IPv4PerENI != 10 || got.Hypervisor != "nitro" || got.Source != "ec2" {
		t.Errorf("NetworkLimits = %+v", got)
	}
}

func TestServiceEndpointOverridesGenericEndpoint(t *testing.T) {
	awstest.IsolateEnv(t)
	stub := awstest.NewEC2(t)
	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9") // discard port: nothing listens
	t.Setenv("AWS_ENDPOINT_URL_EC2", stub.URL)
	stub.AddInstance(awstest.Instance{ID: testInstanceID, PrivateDNSName: "n"})
	c := clientFor(t, awsconfig.Options{MaxAttempts: 1}, fastWait)
	if _, err := c.PrivateDNSName(t.Context(), testInstanceID); err != nil {
		t.Fatalf("PrivateDNSName via AWS_ENDPOINT_URL_EC2: %v", err)
	}
}

func TestAPITrafficGoesThroughProxy(t *testing.T) {
	awstest.IsolateEnv(t)
	stub := awstest.NewEC2(t)
	stub.AddInstance(awstest.Instance{ID: testInstanceID, PrivateDNSName: "ip-10-0-0-5.ec2.internal"})
	proxy := awstest.NewProxy(t, stub.URL)
	// A host name that does not resolve: only the proxy can deliver it.
	t.Setenv("AWS_ENDPOINT_URL_EC2", "http://ec2.nodeboot.invalid")
	// Two attempts, as the agent has more: a CI run once lost the one
	// connection of a single attempt to "use of closed network connection"
	// on a loaded machine. What is checked is the route of every attempt.
	c := clientFor(t, awsconfig.Options{MaxAttempts: 2}, fastWait)
	t.Setenv("HTTP_PROXY", proxy.URL) // set after the client exists: read per request
	got, err := c.PrivateDNSName(t.Context(), testInstanceID)
	if err != nil {
		t.Fatalf("PrivateDNSName through proxy: %v", err)
	}
	if got != "ip-10-0-0-5.ec2.internal" {
		t.Errorf("name = %q", got)
	}
	reqs := proxy.Requests()
	if len(reqs) == 0 || len(reqs) != stub.Calls(awstest.ActionDescribeInstances) {
		t.Errorf("proxy requests = %q, stub calls %d: want every call through the proxy", reqs, stub.Calls(awstest.ActionDescribeInstances))
	}
	for _, r := range reqs {
		if r != "POST ec2.nodeboot.invalid/" {
			t.Errorf("proxy request %q, want a POST to the EC2 endpoint", r)
		}
	}
}
