package sdkdefault

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdkec2 "github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// errCaptured ends a call once its request has been captured.
var errCaptured = errors.New("captured")

// captureBody keeps the body of the request the SDK hands its HTTP client.
type captureBody struct{ body io.ReadCloser }

func (c *captureBody) Do(r *http.Request) (*http.Response, error) {
	c.body = r.Body
	return nil, errCaptured
}

// TestRequestBodiesEndCleanlyOnceClosed: the body both loaders' clients hand
// net/http, once the SDK has closed it (as it does on the answer's headers),
// reads to a clean end. With smithy-go's own wrapper the copy net/http makes
// after a body of known length fails with io.EOF instead; net/http then
// closes the connection under the answer and the SDK retries the call
// (aws/aws-sdk-go-v2#2737).
func TestRequestBodiesEndCleanlyOnceClosed(t *testing.T) {
	loaders := []struct {
		name string
		load func(context.Context, awsconfig.Options) (aws.Config, error)
	}{
		{name: "node loader", load: awsconfig.LoadNode},
		{name: "default chain", load: Load},
	}
	for _, l := range loaders {
		t.Run(l.name, func(t *testing.T) {
			awstest.IsolateEnv(t)
			cfg, err := l.load(t.Context(), awsconfig.Options{Region: "us-west-2", MaxAttempts: 1})
			if err != nil {
				t.Fatal(err)
			}
			capture := &captureBody{}
			client := sdkec2.NewFromConfig(cfg, func(o *sdkec2.Options) { o.HTTPClient = capture })
			_, err = client.DescribeInstances(t.Context(), &sdkec2.DescribeInstancesInput{InstanceIds: []string{"i-0123456789abcdef0"}})
			if !errors.Is(err, errCaptured) || capture.body == nil {
				t.Fatalf("DescribeInstances = %v with body %v; want the request captured with its body", err, capture.body)
			}
			if _, ok := capture.body.(io.WriterTo); ok {
				t.Errorf("request body %T is an io.WriterTo", capture.body)
			}
			if err := capture.body.Close(); err != nil {
				t.Fatal(err)
			}
			if n, err := io.Copy(io.Discard, capture.body); n != 0 || err != nil {
				t.Errorf("copying the closed body = %d bytes, %v; want 0 and a clean end", n, err)
			}
		})
	}
}
