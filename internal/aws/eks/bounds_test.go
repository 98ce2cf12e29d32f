package eks

import (
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// TestStalledAPIIsBounded: an EKS endpoint that accepts and never answers,
// or answers its headers and then stalls, costs each attempt its request
// timeout, and the call gives up after its attempts naming the cluster.
func TestStalledAPIIsBounded(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault func(s *awstest.EKS)
	}{
		{name: "accepts and never answers", fault: func(s *awstest.EKS) { s.Hang(awstest.ActionDescribeCluster) }},
		{name: "headers, then a stalled body", fault: func(s *awstest.EKS) { s.Trickle(awstest.ActionDescribeCluster, time.Hour) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			awstest.IsolateEnv(t)
			stub := awstest.NewEKS(t)
			stub.AddCluster(prodCluster)
			tc.fault(stub)
			t.Setenv("AWS_ENDPOINT_URL_EKS", stub.URL)
			cfg, err := awsconfig.LoadNode(t.Context(), awsconfig.Options{
				Region: "us-west-2", MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond,
				RequestTimeout: 100 * time.Millisecond,
			})
			if err != nil {
				t.Fatal(err)
			}
			_, err = awstest.Within(t, func() (ClusterInfo, error) { return New(cfg).DescribeCluster(t.Context(), "prod") })
			if err == nil || !strings.Contains(err.Error(), `eks DescribeCluster "prod": gave up after 2 attempts`) {
				t.Fatalf("error = %v, want the call to give up after its 2 attempts", err)
			}
			// An attempt whose deadline passes before the stub sees it (a
			// loaded machine) is not counted there: never more than 2.
			if n := stub.Calls(awstest.ActionDescribeCluster); n > 2 {
				t.Errorf("calls = %d, want at most the 2 attempts", n)
			}
		})
	}
}
