package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/maxpods/celexpr"
	"github.com/nodeboot/nodeboot/internal/node/celhelper"
	"github.com/nodeboot/nodeboot/internal/testing/gobuild"
)

// bin holds nodeboot-cel and a nodeboot built like `make build` builds it
// (-tags celexec: no cel-go, expressions go to nodeboot-cel).
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "nodeboot-cel-")
	if err != nil {
		panic(err)
	}
	bin = dir
	for _, b := range []struct{ pkg, tags string }{{".", ""}, {"../nodeboot", "celexec"}} {
		if err := gobuild.Build(context.Background(), ".", dir+"/", b.pkg, b.tags); err != nil {
			panic(err)
		}
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// TestHelperAnswersLikeCelGoInProcess runs the built helper on checks and
// evaluations and compares each answer with celexpr's in this process.
func TestHelperAnswersLikeCelGoInProcess(t *testing.T) {
	h := celhelper.Helper{Path: filepath.Join(bin, celhelper.HelperName)}
	vars := celexpr.Vars{DefaultENIs: 4, IPsPerENI: 15, MaxPods: 58} // m4.xlarge
	for _, expr := range []string{
		"max_pods", "((default_enis-1)*(ips_per_eni-1))+2", "max_pods > 50 ? 50 : max_pods",
		"double(max_pods) * 1.5 + 0.9", `"110"`, "uint(max_pods) + 1u", "-1", "2147483648",
		"max_pods / (default_enis - 4)", `"many"`, "max_pods +", "max_pod + 1", "max_pods > 10", "",
	} {
		t.Run(expr, func(t *testing.T) {
			want, wantErr := celexpr.Eval(expr, vars)
			got, err := h.Run(celhelper.ExpressionRequest{Expression: expr, Evaluate: true,
				DefaultENIs: vars.DefaultENIs, IPsPerENI: vars.IPsPerENI, MaxPods: vars.MaxPods})
			if got != want || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Fatalf("helper: %d, %v; in process: %d, %v", got, err, want, wantErr)
			}
			_, err = h.Run(celhelper.ExpressionRequest{Expression: expr})
			if wantCheck := celexpr.Check(expr); (err == nil) != (wantCheck == nil) {
				t.Fatalf("helper check: %v; in process: %v", err, wantCheck)
			}
		})
	}
}

func TestHelperRejectsUnreadableRequests(t *testing.T) {
	for name, in := range map[string]string{
		"not json": "max_pods",
		"too long": `{"expression":"` + strings.Repeat("1", maxRequest) + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(filepath.Join(bin, celhelper.HelperName))
			cmd.Stdin = strings.NewReader(in)
			var ee *exec.ExitError
			if err := cmd.Run(); !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Fatalf("exit: %v, want code 2", err)
			}
		})
	}
}

// TestLeanAgentChecksExpressionsWithHelper runs `nodeboot config check` of
// the lean agent: through the helper next to it, and without one.
func TestLeanAgentChecksExpressionsWithHelper(t *testing.T) {
	lone := t.TempDir() // nodeboot without its helper
	data, err := os.ReadFile(filepath.Join(bin, "nodeboot"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lone, "nodeboot"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, nodeboot, expr string
		code                 int
		stderr               string
	}{
		{name: "valid", nodeboot: bin, expr: "((default_enis - 1) * (ips_per_eni - 1)) + 2"},
		{name: "does not compile", nodeboot: bin, expr: "max_pods +", code: 1, stderr: "maxPodsExpression"},
		{name: "not an int", nodeboot: bin, expr: "max_pods > 10", code: 1, stderr: "result type is bool, want int"},
		{name: "no helper", nodeboot: lone, expr: "max_pods", code: 1, stderr: "found neither at " + filepath.Join(lone, celhelper.HelperName)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			config := "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: c\n" +
				"    apiServerEndpoint: https://example.com\n    certificateAuthority: " + testCA + "\n    cidr: 10.100.0.0/16\n" +
				"  kubelet:\n    maxPodsExpression: \"" + tc.expr + "\"\n"
			if err := os.WriteFile(filepath.Join(root, "nodeconfig.yaml"), []byte(config), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(filepath.Join(tc.nodeboot, "nodeboot"), "config", "check", "--root", root, "-c", "file:///nodeconfig.yaml")
			cmd.Env = append(os.Environ(), "PATH=/nonexistent")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || !strings.Contains(stdout.String()+stderr.String(), tc.stderr) {
				t.Fatalf("exit %d, want %d with %q in the output:\n%s%s", code, tc.code, tc.stderr, &stdout, &stderr)
			}
		})
	}
}

// testCA is a base64 PEM CA certificate (the agent test cases' one).
const testCA = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJnVENDQVNlZ0F3SUJBZ0lVQ1ZNaFlUMjJERXY1OGdnVnZoRGhKeTlTVTVnd0NnWUlLb1pJemowRUF3SXcKRlRFVE1CRUdBMVVFQXd3S2EzVmlaWEp1WlhSbGN6QWdGdzB5TmpFeE1qSXdPREk0TWpsYUdBOHlNVEkyTVRBeQpPVEE0TWpneU9Wb3dGVEVUTUJFR0ExVUVBd3dLYTNWaVpYSnVaWFJsY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHClNNNDlBd0VIQTBJQUJHMlVXdmpWVTBRd2xXcklUNk55d1phZ1lMUkNuTXFvRHVmVzRoVmlLc0dwZS9KMlBTRCsKN0VKazZ1STE0NzVCb3c4SlpPOGNJRDNsYnpGd3o4SEdOWldqVXpCUk1CMEdBMVVkRGdRV0JCU1V1WFVMZW83cgowK3VUNCsrV3hXUVBYdGVZRURBZkJnTlZIU01FR0RBV2dCU1V1WFVMZW83cjArdVQ0KytXeFdRUFh0ZVlFREFQCkJnTlZIUk1CQWY4RUJUQURBUUgvTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDY0RSM1E3UUV3c1dUcG1RVksKbEJTYTVIR255dEt5WDlXc1BkeDVWdFp3V2dJZ096aXBUSmE4eldzUjFPWlBKRG52MWczSFFCSTZ6ZzVSVkg0MQpZajN2ZjNnPQotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0tCg=="
