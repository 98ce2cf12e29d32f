package imds

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdkimds "github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/smithy-go/middleware"
)

// readBodyInAttempt adds bodyReader to an operation's stack, first in the
// deserialize step, so that it sees the operation's output.
func readBodyInAttempt(stack *middleware.Stack) error {
	return stack.Deserialize.Add(bodyReader{}, middleware.Before)
}

// bodyReader reads the answer of GetMetadata, GetUserData and GetDynamicData
// (which the SDK hands out as a stream) inside the attempt: a body that
// stalls midway then ends in the request timeout of that attempt and is
// retried like any other timeout, instead of blocking whoever reads it
// later. It also refuses answers over MaxBodySize without reading them all.
type bodyReader struct{}

func (bodyReader) ID() string { return "nodeboot.ReadBodyInAttempt" }

func (bodyReader) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (
	middleware.DeserializeOutput, middleware.Metadata, error,
) {
	out, md, err := next.HandleDeserialize(ctx, in)
	if err != nil {
		return out, md, err
	}
	switch r := out.Result.(type) {
	case *sdkimds.GetMetadataOutput:
		r.Content, err = buffer(r.Content)
	case *sdkimds.GetUserDataOutput:
		r.Content, err = buffer(r.Content)
	case *sdkimds.GetDynamicDataOutput:
		r.Content, err = buffer(r.Content)
	}
	return out, md, err
}

// buffer reads body whole, up to MaxBodySize.
func buffer(body io.ReadCloser) (io.ReadCloser, error) {
	defer body.Close()
	b, err := io.ReadAll(io.LimitReader(body, MaxBodySize+1))
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	if len(b) > MaxBodySize {
		return nil, terminal{fmt.Errorf("answer is larger than %d KiB: %w", MaxBodySize>>10, ErrTooLarge)}
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// terminal marks an error the retryer must not retry.
type terminal struct{ error }

func (terminal) RetryableError() bool { return false }
func (t terminal) Unwrap() error      { return t.error }

// observedRetryer reports every backoff delay to observe.
type observedRetryer struct {
	aws.RetryerV2
	observe func(attempt int, d time.Duration)
}

func (r observedRetryer) RetryDelay(attempt int, err error) (time.Duration, error) {
	d, e := r.RetryerV2.RetryDelay(attempt, err)
	r.observe(attempt, d)
	return d, e
}
