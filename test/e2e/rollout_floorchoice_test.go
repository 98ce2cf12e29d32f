//go:build e2e

package e2e

import (
	"testing"
	"time"
)

// TestFastestOnAverage: the floor's concurrency is the one whose samples
// took least in all, not the one with the single fastest sample.
func TestFastestOnAverage(t *testing.T) {
	s := time.Second
	tests := []struct {
		name string
		sum  map[int]time.Duration
		want int
	}{
		{"lowest sum", map[int]time.Duration{16: 12 * s, 1: 30 * s, 64: 11 * s}, 64},
		{"one lucky sample does not choose", map[int]time.Duration{16: 6*s + 6*s, 64: 5*s + 8*s}, 16},
		{"tie: the first listed", map[int]time.Duration{16: 12 * s, 64: 12 * s}, 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := fastestOnAverage([]int{16, 1, 4, 8, 32, 64}, fillMissing(tc.sum)); got != tc.want {
				t.Errorf("fastestOnAverage = %d, want %d", got, tc.want)
			}
		})
	}
}

// fillMissing gives every concurrency the cases leave out a sum no case
// beats.
func fillMissing(sum map[int]time.Duration) map[int]time.Duration {
	for _, c := range []int{16, 1, 4, 8, 32, 64} {
		if _, ok := sum[c]; !ok {
			sum[c] = time.Hour
		}
	}
	return sum
}
