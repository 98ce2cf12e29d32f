package eks

import (
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// TestStalledAPIIsBounded: an EKS endpoint that accepts and never answers,
// or answers its headers and then stalls, costs each attempt its request
// timeout, and the call gives up after its attempts naming the cluster.
func TestStalledAPIIsBounded(t *testing.T) {
	for _, stall := range awstest.Stalls() {
		t.Run(stall.Name, func(t *testing.T) {
			c, stub := newBoundedClient(t, 2, 100*time.Millisecond)
			stub.AddCluster(prodCluster)
			stall.Apply(&stub.Behavior, awstest.ActionDescribeCluster)
			_, err := awstest.Within(t, func() (ClusterInfo, error) { return c.DescribeCluster(t.Context(), "prod") })
			awstest.CheckGaveUp(t, err, `eks DescribeCluster "prod": gave up after 2 attempts`, stub.Calls(awstest.ActionDescribeCluster), 2)
		})
	}
}
