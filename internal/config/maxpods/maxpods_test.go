package maxpods

import (
	"errors"
	"slices"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/eni"
)

// Limits as the table has them (checked against the table in
// TestTableLimitsMatch).
var (
	m5Large    = eni.Limits{DefaultENIs: 3, IPv4PerENI: 10, TotalENIs: 3, Hypervisor: "nitro"}
	m5Xlarge8  = eni.Limits{DefaultENIs: 8, IPv4PerENI: 30, TotalENIs: 8, Hypervisor: "nitro"}
	m4Xlarge   = eni.Limits{DefaultENIs: 4, IPv4PerENI: 15, TotalENIs: 4, Hypervisor: "xen"}
	c1Medium   = eni.Limits{DefaultENIs: 2, IPv4PerENI: 6, TotalENIs: 2, Hypervisor: "xen"}
	a1Metal    = eni.Limits{DefaultENIs: 8, IPv4PerENI: 30, TotalENIs: 8, Hypervisor: "unknown", BareMetal: true}
	p5Xlarge48 = eni.Limits{DefaultENIs: 2, IPv4PerENI: 50, TotalENIs: 64, Hypervisor: "nitro"}
)

func TestTableLimitsMatch(t *testing.T) {
	for name, want := range map[string]eni.Limits{
		"m5.large": m5Large, "m5.8xlarge": m5Xlarge8, "m4.xlarge": m4Xlarge,
		"c1.medium": c1Medium, "a1.metal": a1Metal, "p5.48xlarge": p5Xlarge48,
	} {
		if got, ok := eni.Lookup(name); !ok || got != want {
			t.Errorf("eni.Lookup(%q) = %+v, %t; want %+v", name, got, ok, want)
		}
	}
}

func TestStandardFromTable(t *testing.T) {
	cases := []struct {
		instanceType string
		want         int
	}{
		{"m5.large", 29}, {"t3.medium", 17}, {"t3.micro", 4}, {"m5.xlarge", 58}, {"m4.xlarge", 58},
		{"c5.18xlarge", 737}, {"m5.24xlarge", 737}, {"p5.48xlarge", 100}, {"trn1.32xlarge", 247},
		{"a1.medium", 8},
	}
	for _, tc := range cases {
		t.Run(tc.instanceType, func(t *testing.T) {
			l, ok := eni.Lookup(tc.instanceType)
			if !ok {
				t.Fatalf("%s not in table", tc.instanceType)
			}
			if got := Standard(l); got != tc.want {
				t.Fatalf("Standard = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestCompute(t *testing.T) {
	cases := []struct {
		name         string
		in           Input
		want         Result
		wantExprErr  bool
		wantWarnings int
	}{
		{
			name: "m5.large standard",
			in:   Input{Limits: m5Large, Known: true, VCPUs: 2},
			want: Result{MaxPods: 29, Standard: 29, Source: SourceFormula},
		},
		{
			name: "m5.large custom networking",
			in:   Input{Limits: m5Large, Known: true, VCPUs: 2, Policy: Policy{CustomNetworking: true}},
			want: Result{MaxPods: 20, Standard: 29, Source: SourceFormula},
		},
		{
			name: "m5.large prefix delegation raw",
			in:   Input{Limits: m5Large, Known: true, VCPUs: 2, Policy: Policy{PrefixDelegation: true}},
			want: Result{MaxPods: 434, Standard: 29, Source: SourceFormula},
		},
		{
			name: "m5.large prefix delegation capped",
			in:   Input{Limits: m5Large, Known: true, VCPUs: 2, Policy: Policy{PrefixDelegation: true, Cap: true}},
			want: Result{MaxPods: 110, Standard: 29, Source: SourceFormula},
		},
		{
			name: "m5.8xlarge prefix delegation capped at 250",
			in:   Input{Limits: m5Xlarge8, Known: true, VCPUs: 32, Policy: Policy{PrefixDelegation: true, Cap: true}},
			want: Result{MaxPods: 250, Standard: 234, Source: SourceFormula},
		},
		{
			name: "30 vCPUs is still a small node",
			in:   Input{Limits: m5Xlarge8, Known: true, VCPUs: 30, Policy: Policy{PrefixDelegation: true, Cap: true}},
			want: Result{MaxPods: 110, Standard: 234, Source: SourceFormula},
		},
		{
			name: "cap with unknown vCPUs uses 110",
			in:   Input{Limits: m5Xlarge8, Known: true, Policy: Policy{Cap: true}},
			want: Result{MaxPods: 110, Standard: 234, Source: SourceFormula},
		},
		{
			name: "cap leaves small values alone",
			in:   Input{Limits: m5Large, Known: true, VCPUs: 2, Policy: Policy{Cap: true}},
			want: Result{MaxPods: 29, Standard: 29, Source: SourceFormula},
		},
		{
			name: "max ENIs limits",
			in:   Input{Limits: m5Large, Known: true, Policy: Policy{MaxENIs: 2}},
			want: Result{MaxPods: 20, Standard: 29, Source: SourceFormula},
		},
		{
			name: "max ENIs above the instance's is no limit",
			in:   Input{Limits: m5Large, Known: true, Policy: Policy{MaxENIs: 9}},
			want: Result{MaxPods: 29, Standard: 29, Source: SourceFormula},
		},
		{
			name: "max ENIs and custom networking and prefix delegation",
			in:   Input{Limits: m5Large, Known: true, Policy: Policy{MaxENIs: 2, CustomNetworking: true, PrefixDelegation: true}},
			want: Result{MaxPods: 146, Standard: 29, Source: SourceFormula},
		},
		{
			name: "custom networking on one ENI floors at zero ENIs",
			in:   Input{Limits: m5Large, Known: true, Policy: Policy{MaxENIs: 1, CustomNetworking: true}},
			want: Result{MaxPods: 2, Standard: 29, Source: SourceFormula},
		},
		{
			name:         "prefix delegation ignored on xen",
			in:           Input{Limits: c1Medium, Known: true, Policy: Policy{PrefixDelegation: true}},
			want:         Result{MaxPods: 12, Standard: 12, Source: SourceFormula},
			wantWarnings: 1,
		},
		{
			name: "prefix delegation on bare metal",
			in:   Input{Limits: a1Metal, Known: true, VCPUs: 16, Policy: Policy{PrefixDelegation: true}},
			want: Result{MaxPods: 3714, Standard: 234, Source: SourceFormula},
		},
		{
			name: "p5.48xlarge counts the default card",
			in:   Input{Limits: p5Xlarge48, Known: true, VCPUs: 192},
			want: Result{MaxPods: 100, Standard: 100, Source: SourceFormula},
		},
		{
			name: "unknown limits use the kubelet default",
			in:   Input{VCPUs: 2},
			want: Result{MaxPods: 110, Source: SourceDefault},
		},
		{
			name:         "unusable limits use the kubelet default",
			in:           Input{Limits: eni.Limits{DefaultENIs: 3}, Known: true},
			want:         Result{MaxPods: 110, Source: SourceDefault},
			wantWarnings: 1,
		},
		{
			name: "nodeadm e2e expression on m4.xlarge",
			in:   Input{Limits: m4Xlarge, Known: true, VCPUs: 4, Expression: "((default_enis-1)*(ips_per_eni-1))+2", Evaluator: inProcess},
			want: Result{MaxPods: 44, Standard: 58, Source: SourceExpression},
		},
		{
			name: "expression sees the standard value, not the policy value, and is not capped",
			in:   Input{Limits: m5Large, Known: true, Policy: Policy{CustomNetworking: true, Cap: true}, Expression: "max_pods * 10", Evaluator: inProcess},
			want: Result{MaxPods: 290, Standard: 29, Source: SourceExpression},
		},
		{
			name:         "failing expression falls back to the formula",
			in:           Input{Limits: m5Large, Known: true, Policy: Policy{CustomNetworking: true}, Expression: "max_pods - 29", Evaluator: inProcess},
			want:         Result{MaxPods: 20, Standard: 29, Source: SourceFormula},
			wantExprErr:  true,
			wantWarnings: 1,
		},
		{
			name:         "expression with unknown limits is only checked",
			in:           Input{Expression: "max_pods + 2", Evaluator: inProcess},
			want:         Result{MaxPods: 110, Source: SourceDefault},
			wantWarnings: 1,
		},
		{
			name:         "bad expression with unknown limits reports its error",
			in:           Input{Expression: "max_pods +", Evaluator: inProcess},
			want:         Result{MaxPods: 110, Source: SourceDefault},
			wantExprErr:  true,
			wantWarnings: 2,
		},
		{
			name: "user maxPods wins over the formula",
			in:   Input{Limits: m5Large, Known: true, Policy: Policy{PrefixDelegation: true}, UserMaxPods: 58},
			want: Result{MaxPods: 58, Standard: 29, Source: SourceUser},
		},
		{
			name:         "nodeadm e2e: user maxPods 1 wins over expression max_pods+2",
			in:           Input{Limits: m4Xlarge, Known: true, VCPUs: 4, Expression: "max_pods+2", Evaluator: inProcess, UserMaxPods: 1},
			want:         Result{MaxPods: 1, Standard: 58, Source: SourceUser},
			wantWarnings: 1,
		},
		{
			name: "user maxPods wins over unknown limits",
			in:   Input{UserMaxPods: 17},
			want: Result{MaxPods: 17, Source: SourceUser},
		},
		{
			name:         "user maxPods still reports a bad expression",
			in:           Input{Limits: m5Large, Known: true, Expression: `"x"`, Evaluator: inProcess, UserMaxPods: 17},
			want:         Result{MaxPods: 17, Standard: 29, Source: SourceUser},
			wantExprErr:  true,
			wantWarnings: 2,
		},
		{
			name:         "negative user maxPods is ignored",
			in:           Input{Limits: m5Large, Known: true, UserMaxPods: -5},
			want:         Result{MaxPods: 29, Standard: 29, Source: SourceFormula},
			wantWarnings: 1,
		},
		{
			name: "huge limits clamp to MaxInt32",
			in:   Input{Limits: eni.Limits{DefaultENIs: 1 << 20, IPv4PerENI: 1 << 20, Hypervisor: "nitro"}, Known: true},
			want: Result{MaxPods: 2147483647, Standard: 2147483647, Source: SourceFormula},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Compute(tc.in)
			if tc.wantExprErr != errors.Is(err, ErrBadExpression) || (!tc.wantExprErr && err != nil) {
				t.Fatalf("err = %v, want expression error %t", err, tc.wantExprErr)
			}
			if got.MaxPods != tc.want.MaxPods || got.Standard != tc.want.Standard || got.Source != tc.want.Source {
				t.Errorf("Compute = {MaxPods:%d Standard:%d Source:%s}, want {MaxPods:%d Standard:%d Source:%s}",
					got.MaxPods, got.Standard, got.Source, tc.want.MaxPods, tc.want.Standard, tc.want.Source)
			}
			if len(got.Warnings) != tc.wantWarnings {
				t.Errorf("warnings = %q, want %d", got.Warnings, tc.wantWarnings)
			}
		})
	}
}

func TestComputeWarningTexts(t *testing.T) {
	res, _ := Compute(Input{Limits: c1Medium, Known: true, Policy: Policy{PrefixDelegation: true}})
	want := []string{`prefix delegation needs a Nitro instance (hypervisor "xen"); ignored`}
	if !slices.Equal(res.Warnings, want) {
		t.Errorf("xen PD warnings = %q, want %q", res.Warnings, want)
	}
	res, _ = Compute(Input{Limits: m4Xlarge, Known: true, Expression: "max_pods+2", Evaluator: inProcess, UserMaxPods: 1})
	want = []string{"kubelet.config.maxPods 1 overrides kubelet.maxPodsExpression"}
	if !slices.Equal(res.Warnings, want) {
		t.Errorf("override warnings = %q, want %q", res.Warnings, want)
	}
}

func TestWindowsMaxPods(t *testing.T) {
	cases := []struct {
		name string
		l    eni.Limits
		want int
	}{
		{name: "m5.large", l: m5Large, want: 9},
		{name: "p5.48xlarge", l: p5Xlarge48, want: 49},
		{name: "one address", l: eni.Limits{DefaultENIs: 1, IPv4PerENI: 1}, want: 0},
		{name: "zero floors at zero", l: eni.Limits{}, want: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := WindowsMaxPods(tc.l); got != tc.want {
				t.Fatalf("WindowsMaxPods = %d, want %d", got, tc.want)
			}
		})
	}
}

var sinkResult Result

func BenchmarkComputeFormula(b *testing.B) {
	in := Input{Limits: m5Large, Known: true, VCPUs: 2, Policy: Policy{PrefixDelegation: true, Cap: true}}
	b.ReportAllocs()
	for b.Loop() {
		sinkResult, _ = Compute(in)
	}
}

func BenchmarkComputeExpression(b *testing.B) {
	in := Input{Limits: m4Xlarge, Known: true, VCPUs: 4, Expression: "((default_enis-1)*(ips_per_eni-1))+2", Evaluator: inProcess}
	b.ReportAllocs()
	for b.Loop() {
		sinkResult, _ = Compute(in)
	}
}
