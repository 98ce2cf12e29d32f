package sdkdefault

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	sdkec2 "github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/nodeboot/nodeboot/internal/aws/awsconfig"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// errCaptured ends a call once its request has been captured.
var errCaptured = errors.New("captured")

// captureBody keeps the request the SDK hands its HTTP client, its body
// and the bytes net/http would send from it.
type captureBody struct {
	req  *http.Request
	body io.ReadCloser
	sent []byte
}

func (c *captureBody) Do(r *http.Request) (*http.Response, error) {
	c.req, c.body = r, r.Body
	sent, err := io.ReadAll(r.Body)
	c.sent = sent
	if err != nil {
		return nil, err
	}
	return nil, errCaptured
}

// checkSignedBody signs c's request again over the bytes it sent, with the
// same credentials and time, and fails unless the SDK's signature matches:
// the body handed to net/http is the one the SDK signed.
func checkSignedBody(t *testing.T, cfg aws.Config, c *captureBody) {
	t.Helper()
	creds, err := cfg.Credentials.Retrieve(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.Parse("20060102T150405Z", c.req.Header.Get("X-Amz-Date"))
	if err != nil {
		t.Fatalf("X-Amz-Date: %v", err)
	}
	again := c.req.Clone(t.Context())
	again.Header.Del("Authorization")
	again.Body = io.NopCloser(bytes.NewReader(c.sent))
	sum := sha256.Sum256(c.sent)
	if err := v4.NewSigner().SignHTTP(t.Context(), creds, again, hex.EncodeToString(sum[:]), "ec2", cfg.Region, at); err != nil {
		t.Fatal(err)
	}
	if got, want := c.req.Header.Get("Authorization"), again.Header.Get("Authorization"); got != want || len(c.sent) == 0 {
		t.Errorf("the SDK signed another body than the %d bytes it sent:\n%s\nwant\n%s", len(c.sent), got, want)
	}
}

// TestRequestBodiesEndCleanlyOnceClosed: the body both loaders' clients hand
// net/http is the one the SDK signed and, once the SDK has closed it (as it
// does on the answer's headers), reads to a clean end. With smithy-go's own wrapper the copy net/http makes
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
			checkSignedBody(t, cfg, capture)
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
