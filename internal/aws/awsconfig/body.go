package awsconfig

import (
	"context"
	"io"

	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// plainBody is the request stream the SDK sends, with only Read and Seek:
// no io.WriterTo.
//
// Written by hand because the SDK closes the connection under its own
// answer otherwise (aws/aws-sdk-go-v2#2737, smithy-go v1.28.9). smithy-go
// wraps a request body so that, once it has the answer's headers, it closes
// the body, after which the wrapper's WriteTo returns io.EOF. net/http, which
// after writing a body of known length copies the rest of it once more (to
// check that nothing is left), takes that io.EOF from WriteTo for a failed
// body read and closes the connection, while the answer's body may still be
// arriving on it. The call then fails with "use of closed network
// connection", the SDK logs "failed to discard remaining HTTP response body"
// and retries it: a second request, and a retry token spent, for an answer
// that had arrived. Without WriteTo the copy goes through Read, which answers a
// closed body with io.EOF, the normal end.
type plainBody struct{ io.ReadSeeker }

// plainBodyMiddleware replaces a seekable request stream by a plainBody
// before the retry loop, which rewinds it (Seek) for each attempt.
var plainBodyMiddleware = middleware.BuildMiddlewareFunc("nodebootPlainBody",
	func(ctx context.Context, in middleware.BuildInput, next middleware.BuildHandler) (middleware.BuildOutput, middleware.Metadata, error) {
		req, ok := in.Request.(*smithyhttp.Request)
		if !ok {
			return next.HandleBuild(ctx, in)
		}
		stream, seekable := req.GetStream().(io.ReadSeeker)
		if _, writerTo := stream.(io.WriterTo); !seekable || !writerTo {
			return next.HandleBuild(ctx, in)
		}
		plain, err := req.SetStream(plainBody{stream})
		if err != nil {
			return middleware.BuildOutput{}, middleware.Metadata{}, err
		}
		in.Request = plain
		return next.HandleBuild(ctx, in)
	})

// WithPlainRequestBodies adds plainBodyMiddleware to every client built
// from a configuration whose APIOptions it is in.
func WithPlainRequestBodies(stack *middleware.Stack) error {
	return stack.Build.Add(plainBodyMiddleware, middleware.After)
}
