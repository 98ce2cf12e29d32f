package eni

import (
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	cases := []struct {
		name         string
		instanceType string
		want         Limits
		wantOK       bool
	}{
		{name: "m5.large", instanceType: "m5.large", want: Limits{DefaultENIs: 3, IPv4PerENI: 10, TotalENIs: 3, Hypervisor: "nitro"}, wantOK: true},
		{name: "t3.medium", instanceType: "t3.medium", want: Limits{DefaultENIs: 3, IPv4PerENI: 6, TotalENIs: 3, Hypervisor: "nitro"}, wantOK: true},
		{name: "t3.micro", instanceType: "t3.micro", want: Limits{DefaultENIs: 2, IPv4PerENI: 2, TotalENIs: 2, Hypervisor: "nitro"}, wantOK: true},
		{name: "m5.xlarge", instanceType: "m5.xlarge", want: Limits{DefaultENIs: 4, IPv4PerENI: 15, TotalENIs: 4, Hypervisor: "nitro"}, wantOK: true},
		{name: "c5.18xlarge", instanceType: "c5.18xlarge", want: Limits{DefaultENIs: 15, IPv4PerENI: 50, TotalENIs: 15, Hypervisor: "nitro"}, wantOK: true},
		{name: "m5.24xlarge", instanceType: "m5.24xlarge", want: Limits{DefaultENIs: 15, IPv4PerENI: 50, TotalENIs: 15, Hypervisor: "nitro"}, wantOK: true},
		{name: "p5.48xlarge counts only card 0", instanceType: "p5.48xlarge", want: Limits{DefaultENIs: 2, IPv4PerENI: 50, TotalENIs: 64, Hypervisor: "nitro"}, wantOK: true},
		{name: "trn1.32xlarge", instanceType: "trn1.32xlarge", want: Limits{DefaultENIs: 5, IPv4PerENI: 50, TotalENIs: 40, Hypervisor: "nitro"}, wantOK: true},
		{name: "a1.medium", instanceType: "a1.medium", want: Limits{DefaultENIs: 2, IPv4PerENI: 4, TotalENIs: 2, Hypervisor: "nitro"}, wantOK: true},
		{name: "xen", instanceType: "c1.medium", want: Limits{DefaultENIs: 2, IPv4PerENI: 6, TotalENIs: 2, Hypervisor: "xen"}, wantOK: true},
		{name: "bare metal", instanceType: "a1.metal", want: Limits{DefaultENIs: 8, IPv4PerENI: 30, TotalENIs: 8, Hypervisor: "unknown", BareMetal: true}, wantOK: true},
		{name: "first entry", instanceType: table[0].instanceType, want: table[0].limits(), wantOK: true},
		{name: "last entry", instanceType: table[len(table)-1].instanceType, want: table[len(table)-1].limits(), wantOK: true},
		{name: "unknown type", instanceType: "m99.large"},
		{name: "prefix of a type", instanceType: "m5.larg"},
		{name: "upper case", instanceType: "M5.LARGE"},
		{name: "surrounding space", instanceType: " m5.large"},
		{name: "empty", instanceType: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Lookup(tc.instanceType)
			if ok != tc.wantOK || got != tc.want {
				t.Fatalf("Lookup(%q) = %+v, %t; want %+v, %t", tc.instanceType, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// TestStandardMaxPodsSpotChecks recomputes the documented max pods values
// (ENIs × (IPs − 1) + 2) from the table.
func TestStandardMaxPodsSpotChecks(t *testing.T) {
	cases := []struct {
		instanceType string
		want         int
	}{
		{"m5.large", 29}, {"t3.medium", 17}, {"t3.micro", 4}, {"t3.nano", 4}, {"t2.micro", 4},
		{"m5.xlarge", 58}, {"m4.xlarge", 58}, {"c5.18xlarge", 737}, {"m5.24xlarge", 737},
		{"p4d.24xlarge", 737}, {"p5.48xlarge", 100}, {"trn1.32xlarge", 247}, {"a1.medium", 8},
	}
	for _, tc := range cases {
		t.Run(tc.instanceType, func(t *testing.T) {
			l, ok := Lookup(tc.instanceType)
			if !ok {
				t.Fatalf("%s not in table", tc.instanceType)
			}
			if got := l.DefaultENIs*(l.IPv4PerENI-1) + 2; got != tc.want {
				t.Fatalf("max pods = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestTableIsSortedAndUnique(t *testing.T) {
	for i := 1; i < len(table); i++ {
		if strings.Compare(table[i-1].instanceType, table[i].instanceType) >= 0 {
			t.Fatalf("table[%d] %q is not after table[%d] %q", i, table[i].instanceType, i-1, table[i-1].instanceType)
		}
	}
	for i, e := range table {
		if e.defaultENIs == 0 || e.ipv4PerENI == 0 || int(e.totalENIs) < int(e.defaultENIs) {
			t.Errorf("table[%d] %+v has impossible limits", i, e)
		}
	}
}

func TestCountAndSource(t *testing.T) {
	if got := Count(); got != 1391 {
		t.Errorf("Count() = %d, want 1391", got)
	}
	name, date := Source()
	if name != "instance-network-limits.jsonl" || date != "2026-08" {
		t.Errorf("Source() = %q, %q; want instance-network-limits.jsonl, 2026-08", name, date)
	}
}

func TestHypervisorString(t *testing.T) {
	cases := []struct {
		h    hypervisor
		want string
	}{
		{hvNitro, HypervisorNitro}, {hvXen, HypervisorXen}, {hvUnknown, HypervisorUnknown}, {hypervisor(200), HypervisorUnknown},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			if got := tc.h.String(); got != tc.want {
				t.Fatalf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLookupDoesNotAllocate(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := Lookup("m5.large"); !ok {
			t.Fatal("m5.large missing")
		}
	})
	if allocs != 0 {
		t.Fatalf("Lookup allocates %.1f times per call, want 0", allocs)
	}
}

var sinkLimits Limits

func BenchmarkLookup(b *testing.B) {
	names := []string{"m5.large", "a1.medium", "p5.48xlarge", "z1d.metal", "t3.micro", "not.atype"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sinkLimits, _ = Lookup(names[i%len(names)])
	}
}
