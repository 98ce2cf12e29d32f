package maxpods

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/maxpods/celexpr"
)

// inProcess is the evaluator the tests run expressions with: cel-go, as
// the CLI wires it without -tags celexec.
var inProcess = celexpr.Evaluator{}

// TestNoEvaluator: an expression with no evaluator to run it is refused,
// never ignored.
func TestNoEvaluator(t *testing.T) {
	if err := CheckExpression(nil, "max_pods"); !errors.Is(err, ErrBadExpression) || !errors.Is(err, ErrNoEvaluator) {
		t.Errorf("CheckExpression without an evaluator = %v", err)
	}
	res, err := Compute(Input{Limits: m5Large, Known: true, Expression: "max_pods + 2"})
	if !errors.Is(err, ErrNoEvaluator) || res.Source != SourceFormula || res.MaxPods != 29 {
		t.Errorf("Compute without an evaluator = %+v, %v; want the formula's 29 and ErrNoEvaluator", res, err)
	}
}

func TestCheckExpression(t *testing.T) {
	cases := []struct {
		name string
		expr string
		ok   bool
	}{
		{name: "standard variable", expr: "max_pods", ok: true},
		{name: "nodeadm e2e custom networking", expr: "((default_enis-1)*(ips_per_eni-1))+2", ok: true},
		{name: "prefix delegation", expr: "(default_enis - 1) * (ips_per_eni - 1) * 16", ok: true},
		{name: "min with ternary", expr: "max_pods > 110 ? 110 : max_pods", ok: true},
		{name: "dyn result", expr: "dyn(max_pods)", ok: true},
		{name: "double result converts", expr: "double(max_pods) * 1.5", ok: true},
		{name: "uint result converts", expr: "uint(max_pods)", ok: true},
		{name: "string result converts", expr: `"110"`, ok: true},
		{name: "empty", expr: ""},
		{name: "syntax error", expr: "max_pods +"},
		{name: "unknown variable", expr: "max_pod + 1"},
		{name: "vcpus is not a variable", expr: "vcpus * 10"},
		{name: "bool result", expr: "max_pods > 10"},
		{name: "list result", expr: "[max_pods]"},
		{name: "null result", expr: "null"},
		{name: "mixed int and double", expr: "max_pods + 1.0"},
		{name: "too long", expr: "max_pods" + strings.Repeat(" + 1", MaxExpressionLen)},
		{name: "small comprehension", expr: "[1, 2, 3].map(x, x * max_pods).size()", ok: true},
		{name: "over the cost limit", expr: costly},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckExpression(inProcess, tc.expr)
			if tc.ok && err != nil {
				t.Fatalf("CheckExpression(%q) = %v, want nil", tc.expr, err)
			}
			if !tc.ok && !errors.Is(err, ErrBadExpression) {
				t.Fatalf("CheckExpression(%q) = %v, want ErrBadExpression", tc.expr, err)
			}
		})
	}
}

// costly is an expression whose evaluation runs past expressionCostLimit:
// nested comprehensions over a 60-item list.
var costly = "[" + strings.TrimSuffix(strings.Repeat("1,", 60), ",") + "].map(a, [" +
	strings.TrimSuffix(strings.Repeat("1,", 60), ",") + "].map(b, [" + strings.TrimSuffix(strings.Repeat("1,", 60), ",") +
	"].map(c, a + b + c))).size()"

// TestCostlyExpressionFailsAtBoot checks that the expression CheckExpression
// refuses for its cost does fail when evaluated, so that refusing it in
// config check is not stricter than boot.
func TestCostlyExpressionFailsAtBoot(t *testing.T) {
	if _, err := evalExpression(inProcess, costly, 4, 15, 58); !errors.Is(err, ErrBadExpression) || !strings.Contains(err.Error(), "cost") {
		t.Fatalf("evaluating the costly expression: %v", err)
	}
}

func TestEvalExpression(t *testing.T) {
	// m4.xlarge: 4 ENIs, 15 IPv4 per ENI, standard 58.
	const enis, ips, standard = 4, 15, 58
	cases := []struct {
		name string
		expr string
		want int32 // 0: error wrapping ErrBadExpression
	}{
		{name: "standard", expr: "max_pods", want: 58},
		{name: "nodeadm e2e custom networking", expr: "((default_enis-1)*(ips_per_eni-1))+2", want: 44},
		{name: "nodeadm e2e plus two", expr: "max_pods+2", want: 60},
		{name: "prefix delegation", expr: "(default_enis - 1) * (ips_per_eni - 1) * 16", want: 672},
		{name: "ternary cap", expr: "max_pods > 50 ? 50 : max_pods", want: 50},
		{name: "double truncates", expr: "double(max_pods) * 1.5 + 0.9", want: 87},
		{name: "numeric string", expr: `"110"`, want: 110},
		{name: "uint", expr: "uint(max_pods) + 1u", want: 59},
		{name: "dyn", expr: "dyn(max_pods)", want: 58},
		{name: "MaxInt32 accepted", expr: "2147483647", want: math.MaxInt32},
		{name: "zero rejected", expr: "max_pods - 58"},
		{name: "negative rejected", expr: "-1"},
		{name: "above MaxInt32 rejected", expr: "2147483648"},
		{name: "integer overflow", expr: "9223372036854775807 + max_pods"},
		{name: "division by zero", expr: "max_pods / (default_enis - 4)"},
		{name: "non-numeric string", expr: `"many"`},
		{name: "NaN double", expr: "0.0 / 0.0"},
		{name: "does not compile", expr: "max_pods +"},
		{name: "cost limit", expr: "[1,2,3,4,5,6,7,8,9,10].map(a, [1,2,3,4,5,6,7,8,9,10].map(b, [1,2,3,4,5,6,7,8,9,10].map(c, [1,2,3,4,5,6,7,8,9,10].map(d, [1,2,3,4,5,6,7,8,9,10].map(e, a))))).size()"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := evalExpression(inProcess, tc.expr, enis, ips, standard)
			if tc.want == 0 {
				if !errors.Is(err, ErrBadExpression) {
					t.Fatalf("evalExpression(%q) = %d, %v; want ErrBadExpression", tc.expr, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("evalExpression(%q) = %d, %v; want %d", tc.expr, got, err, tc.want)
			}
		})
	}
}

// TestExpressionCacheKeepsExpressionsApart makes sure the one-entry cache
// never answers for a different expression.
func TestExpressionCacheKeepsExpressionsApart(t *testing.T) {
	for i, tc := range []struct {
		expr string
		want int32
	}{{"max_pods", 29}, {"max_pods + 1", 30}, {"max_pods", 29}, {"default_enis", 3}} {
		got, err := evalExpression(inProcess, tc.expr, 3, 10, 29)
		if err != nil || got != tc.want {
			t.Fatalf("step %d: evalExpression(%q) = %d, %v; want %d", i, tc.expr, got, err, tc.want)
		}
	}
}

func FuzzCheckExpression(f *testing.F) {
	for _, seed := range []string{
		"max_pods", "((default_enis-1)*(ips_per_eni-1))+2", "max_pods > 110 ? 110 : max_pods",
		`"110"`, "double(max_pods) * 1.5", "[1,2].map(x, x)", "max_pods +", "", "((((((", "\x00",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		err := CheckExpression(inProcess, expr)
		if err != nil && !errors.Is(err, ErrBadExpression) {
			t.Fatalf("CheckExpression(%q) = %v, not wrapping ErrBadExpression", expr, err)
		}
		if err == nil {
			// Whatever compiled must evaluate without panicking.
			_, _ = evalExpression(inProcess, expr, 3, 10, 29)
		}
	})
}
