// Package celhelper runs nodeboot-cel, the helper that checks and evaluates
// max pods expressions for the lean agent (built with -tags celexec, which
// does not link cel-go): one JSON request on stdin, one answer on stdout.
// Evaluator adapts it to maxpods.Evaluator; the CLI's wiring picks it.
package celhelper

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// HelperName is the executable that compiles and evaluates expressions for
// an agent built with -tags celexec; it is installed next to nodeboot.
const HelperName = "nodeboot-cel"

// helperTimeout bounds one helper run to catch a hang; it takes about 10 ms.
const helperTimeout = 10 * time.Second

// ExpressionRequest is what the agent writes to the helper's stdin: check
// Expression, and with Evaluate also evaluate it with the variables.
type ExpressionRequest struct {
	Expression  string `json:"expression"`
	Evaluate    bool   `json:"evaluate,omitempty"`
	DefaultENIs int64  `json:"default_enis,omitempty"`
	IPsPerENI   int64  `json:"ips_per_eni,omitempty"`
	MaxPods     int64  `json:"max_pods,omitempty"`
}

// ExpressionResponse is what the helper writes to stdout: the value
// (converted with CEL's int(), range not checked) or why the expression was
// rejected.
type ExpressionResponse struct {
	Value int64  `json:"value,omitempty"`
	Error string `json:"error,omitempty"`
}

// Helper runs the nodeboot-cel executable at Path.
type Helper struct {
	Path string
}

// FindHelper looks for HelperName next to the running executable, then in
// PATH.
func FindHelper() (Helper, error) {
	var next string
	if exe, err := os.Executable(); err == nil {
		next = filepath.Join(filepath.Dir(exe), HelperName)
		if st, err := os.Stat(next); err == nil && !st.IsDir() {
			return Helper{Path: next}, nil
		}
	}
	p, err := exec.LookPath(HelperName)
	if err != nil {
		return Helper{}, fmt.Errorf("this nodeboot evaluates expressions with %s, found neither at %s nor in PATH: %w", HelperName, next, err)
	}
	return Helper{Path: p}, nil
}

// Run sends req to the helper and returns the value it computed (0 when req
// only checks). A rejected expression's error is the helper's message.
func (h Helper) Run(req ExpressionRequest) (int64, error) {
	in, err := json.Marshal(req)
	if err != nil {
		return 0, err
	}
	// A bound on a local child process, not a cancellation.
	ctx, cancel := context.WithTimeout(context.Background(), helperTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.Path)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("run %s: %w: %s", h.Path, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var resp ExpressionResponse
	if err := json.Unmarshal(stdout.Bytes(), &resp); err != nil {
		return 0, fmt.Errorf("read %s's answer: %w", h.Path, err)
	}
	if resp.Error != "" {
		return 0, errors.New(resp.Error)
	}
	return resp.Value, nil
}

// Evaluator checks and evaluates expressions in the helper, found next to
// the running executable or in PATH on first use. It remembers the last
// expression the helper accepted: validation checks a node's one
// expression, then max pods evaluates it, so a boot runs the helper twice,
// not three times. The zero value is ready to use.
type Evaluator struct {
	mu          sync.Mutex
	lastChecked string
}

// Check compiles expr in the helper.
func (e *Evaluator) Check(expr string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.lastChecked != "" && e.lastChecked == expr {
		return nil
	}
	h, err := FindHelper()
	if err != nil {
		return err
	}
	if _, err := h.Run(ExpressionRequest{Expression: expr}); err != nil {
		return err
	}
	e.lastChecked = expr
	return nil
}

// Eval evaluates expr in the helper with nodeadm's variables.
func (e *Evaluator) Eval(expr string, defaultENIs, ipsPerENI, maxPods int64) (int64, error) {
	h, err := FindHelper()
	if err != nil {
		return 0, err
	}
	return h.Run(ExpressionRequest{Expression: expr, Evaluate: true, DefaultENIs: defaultENIs, IPsPerENI: ipsPerENI, MaxPods: maxPods})
}
