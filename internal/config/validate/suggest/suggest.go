// Package suggest finds the known word a user most likely meant, for
// "did you mean" hints in error messages.
package suggest

import "strings"

// Closest returns the candidate nearest to word, or "" when none is near
// enough to be a plausible typo. A candidate equal to word ignoring case
// always wins; otherwise the edit distance (ignoring case) must be at most a
// third of the longer word, and at least 1 is always allowed for words of
// three or more characters.
func Closest(word string, candidates []string) string {
	if len(word) > maxWord {
		return ""
	}
	best, bestDist := "", -1
	lw := strings.ToLower(word)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == lw {
			return c
		}
		if abs(len(lw)-len(lc)) > allowed(lw, lc) {
			continue // the distance is at least the length difference
		}
		d := distance(lw, lc)
		if d <= allowed(lw, lc) && (bestDist < 0 || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best
}

// maxWord bounds the words compared, keeping the quadratic distance cheap
// on hostile input; no plausible typo of a known name is longer.
const maxWord = 128

// abs is |x|.
func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// allowed is the largest edit distance still taken as a typo.
func allowed(a, b string) int {
	n := max(len(a), len(b))
	if n < 3 {
		return 0
	}
	return max(1, n/3)
}

// distance is the Levenshtein distance between a and b in bytes
// (adjacent transpositions count as one edit).
func distance(a, b string) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
