// Command nodeboot-cel compiles and evaluates one max pods expression
// (kubelet.maxPodsExpression) for the node agent, which is built without
// cel-go (-tags celexec) so that nodes whose config has no expression never
// load it. It reads a celhelper.ExpressionRequest as JSON on stdin and writes a
// celhelper.ExpressionResponse as JSON on stdout; a rejected expression is an
// answer (exit 0), an unreadable request exits 2. Install it next to
// nodeboot.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/nodeboot/nodeboot/internal/config/maxpods"
	"github.com/nodeboot/nodeboot/internal/config/maxpods/celexpr"
	"github.com/nodeboot/nodeboot/internal/node/celhelper"
)

// maxRequest bounds what is read from stdin: an expression and three ints.
const maxRequest = 2*maxpods.MaxExpressionLen + 1024

func main() {
	resp, err := answer(os.Stdin)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", celhelper.HelperName, err)
		os.Exit(2)
	}
	if err := json.NewEncoder(os.Stdout).Encode(resp); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", celhelper.HelperName, err)
		os.Exit(1)
	}
}

// answer reads one request from r and checks or evaluates its expression.
func answer(r io.Reader) (celhelper.ExpressionResponse, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxRequest+1))
	if err != nil {
		return celhelper.ExpressionResponse{}, fmt.Errorf("read request: %w", err)
	}
	if len(b) > maxRequest {
		return celhelper.ExpressionResponse{}, fmt.Errorf("request longer than %d bytes", maxRequest)
	}
	var req celhelper.ExpressionRequest
	if err := json.Unmarshal(b, &req); err != nil {
		return celhelper.ExpressionResponse{}, fmt.Errorf("read request: %w", err)
	}
	if !req.Evaluate {
		if err := celexpr.Check(req.Expression); err != nil {
			return celhelper.ExpressionResponse{Error: err.Error()}, nil
		}
		return celhelper.ExpressionResponse{}, nil
	}
	v, err := celexpr.Eval(req.Expression, celexpr.Vars{
		DefaultENIs: req.DefaultENIs, IPsPerENI: req.IPsPerENI, MaxPods: req.MaxPods,
	})
	if err != nil {
		return celhelper.ExpressionResponse{Error: err.Error()}, nil
	}
	return celhelper.ExpressionResponse{Value: v}, nil
}
