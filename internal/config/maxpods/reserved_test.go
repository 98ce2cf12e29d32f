package maxpods

import (
	"fmt"
	"maps"
	"testing"
)

func TestKubeReservedCPU(t *testing.T) {
	cases := []struct {
		cpus int
		want int64
	}{
		{-1, 0}, {0, 0}, {1, 60}, {2, 70}, {3, 75}, {4, 80}, {5, 82}, {6, 85}, {8, 90},
		{16, 110}, {47, 187}, {48, 190}, {96, 310}, {192, 550},
		{1 << 30, 2684354630}, {1 << 40, 2684354630}, // clamped to 2^30 vCPUs
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%d vCPUs", tc.cpus), func(t *testing.T) {
			if got := KubeReservedCPU(tc.cpus); got != tc.want {
				t.Fatalf("KubeReservedCPU(%d) = %d, want %d", tc.cpus, got, tc.want)
			}
		})
	}
}

func TestKubeReservedMemoryMiB(t *testing.T) {
	cases := []struct {
		name       string
		maxPods    int32
		nodeMiB    int64
		want       int64
		wantCapped bool
	}{
		{name: "m5.large 29 pods", maxPods: 29, nodeMiB: 7680, want: 574},
		{name: "m5.large unknown memory", maxPods: 29, want: 574},
		{name: "nodeadm e2e expression 44", maxPods: 44, nodeMiB: 15360, want: 739},
		{name: "nodeadm e2e user maxPods 1", maxPods: 1, nodeMiB: 15360, want: 266},
		{name: "nodeadm's value for 60 pods", maxPods: 60, want: 915},
		{name: "t3.nano 4 pods on 512Mi is never capped", maxPods: 4, nodeMiB: 512, want: 299},
		{name: "110 pods on a tiny node is never capped", maxPods: 110, nodeMiB: 1024, want: 1465},
		{name: "m5.large PD 434 pods capped at 25 %", maxPods: 434, nodeMiB: 7680, want: 1920, wantCapped: true},
		{name: "PD on a 2Gi node keeps the 110-pod floor", maxPods: 434, nodeMiB: 2048, want: 1465, wantCapped: true},
		{name: "PD without known memory is uncapped", maxPods: 434, want: 5029},
		{name: "m5.24xlarge 737 pods on 384Gi", maxPods: 737, nodeMiB: 393216, want: 8362},
		{name: "exactly at the ceiling", maxPods: 349, nodeMiB: 16376, want: 4094},
		{name: "one pod above the ceiling", maxPods: 350, nodeMiB: 16376, want: 4094, wantCapped: true},
		{name: "negative max pods", maxPods: -3, nodeMiB: 8192, want: 255},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, capped := KubeReservedMemoryMiB(tc.maxPods, tc.nodeMiB)
			if got != tc.want || capped != tc.wantCapped {
				t.Fatalf("KubeReservedMemoryMiB(%d, %d) = %d, %t; want %d, %t", tc.maxPods, tc.nodeMiB, got, capped, tc.want, tc.wantCapped)
			}
		})
	}
}

func TestKubeReserved(t *testing.T) {
	cases := []struct {
		name    string
		cpus    int
		nodeMiB int64
		maxPods int32
		want    Reserved
	}{
		{name: "m5.large", cpus: 2, nodeMiB: 7680, maxPods: 29, want: Reserved{CPU: "70m", Memory: "574Mi", EphemeralStorage: "1Gi"}},
		{name: "nodeadm e2e expression (2 CPU runner)", cpus: 2, nodeMiB: 15360, maxPods: 44, want: Reserved{CPU: "70m", Memory: "739Mi", EphemeralStorage: "1Gi"}},
		{name: "m5.large prefix delegation", cpus: 2, nodeMiB: 7680, maxPods: 434, want: Reserved{CPU: "70m", Memory: "1920Mi", EphemeralStorage: "1Gi"}},
		{name: "96 vCPUs", cpus: 96, nodeMiB: 393216, maxPods: 737, want: Reserved{CPU: "310m", Memory: "8362Mi", EphemeralStorage: "1Gi"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := KubeReserved(tc.cpus, tc.nodeMiB, tc.maxPods); got != tc.want {
				t.Fatalf("KubeReserved = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestNodeadmE2EUserMaxPods is nodeadm's custom-max-pods-expression case with
// user maxPods 1: nodeadm reserves 915Mi (from the expression's 60), nodeboot
// reserves for the pods the kubelet really runs.
func TestNodeadmE2EUserMaxPods(t *testing.T) {
	res, err := Compute(Input{Limits: m4Xlarge, Known: true, VCPUs: 4, Expression: "max_pods+2", Evaluator: inProcess, UserMaxPods: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := KubeReserved(2, 15360, res.MaxPods)
	want := Reserved{CPU: "70m", Memory: "266Mi", EphemeralStorage: "1Gi"}
	if res.MaxPods != 1 || got != want {
		t.Fatalf("maxPods %d, kubeReserved %+v; want 1, %+v", res.MaxPods, got, want)
	}
}

func TestReservedMap(t *testing.T) {
	got := Reserved{CPU: "70m", Memory: "574Mi", EphemeralStorage: "1Gi"}.Map()
	want := map[string]string{"cpu": "70m", "memory": "574Mi", "ephemeral-storage": "1Gi"}
	if !maps.Equal(got, want) {
		t.Fatalf("Map() = %v, want %v", got, want)
	}
}
