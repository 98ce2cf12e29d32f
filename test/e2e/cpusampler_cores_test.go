//go:build e2e

package e2e

import (
	"maps"
	"testing"
	"time"
)

// TestCPUSamplerCores checks the averaging of cpuSampler.cores over
// windows: only the samples inside each window count, the windows' spans
// add up, and a process missing from a window's first sample is left out.
func TestCPUSamplerCores(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	s := &cpuSampler{samples: []cpuSample{
		{at: at(0), seconds: map[string]float64{"etcd": 0, machineKey: 0}},
		{at: at(1), seconds: map[string]float64{"etcd": 0.5, machineKey: 2}},
		{at: at(2), seconds: map[string]float64{"etcd": 1, machineKey: 3, "kwok": 0}},
		{at: at(3), seconds: map[string]float64{"etcd": 1.25, machineKey: 4, "kwok": 1}},
		{at: at(4), seconds: map[string]float64{"etcd": 1.25, machineKey: 6, "kwok": 2}},
	}}
	tests := []struct {
		name    string
		windows [][2]time.Time
		want    map[string]float64
	}{
		{"whole run", [][2]time.Time{{at(0), at(4)}}, map[string]float64{"etcd": 0.31, machineKey: 1.5}},
		{"samples inside only", [][2]time.Time{{at(0.5), at(2.5)}}, map[string]float64{"etcd": 0.5, machineKey: 1}},
		{"two windows add up", [][2]time.Time{{at(0), at(1)}, {at(3), at(4)}}, map[string]float64{"etcd": 0.25, machineKey: 2, "kwok": 0.5}},
		{"process started in the window", [][2]time.Time{{at(2), at(4)}}, map[string]float64{"etcd": 0.13, machineKey: 1.5, "kwok": 1}},
		{"window without two samples", [][2]time.Time{{at(1.2), at(1.8)}}, map[string]float64{}},
		{"no window", nil, map[string]float64{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := s.cores(tc.windows); !maps.Equal(got, tc.want) {
				t.Errorf("cores = %v, want %v", got, tc.want)
			}
		})
	}
}
