package kubeletflag

import (
	"errors"
	"fmt"
	"strings"
)

// ErrMalformedPair means an item of a map flag has no separator; the
// kubelet refuses to start with it.
var ErrMalformedPair = errors.New("malformed pair")

// Pairs accumulates the values of a map flag (--node-labels,
// --kube-reserved with sep "="; --eviction-hard with sep "<") as the
// kubelet does: items split at commas, empty items skipped, key and value
// trimmed of spaces, a later key replacing an earlier one. keys lists each
// key once, in the order first seen. An item without sep is an error
// wrapping ErrMalformedPair.
func Pairs(values []string, sep string) (keys []string, pairs map[string]string, err error) {
	pairs = map[string]string{}
	for _, v := range values {
		items, malformed := SplitPairs(v, sep)
		if len(malformed) > 0 {
			return nil, nil, fmt.Errorf("%w %q: expect key%svalue", ErrMalformedPair, malformed[0], sep)
		}
		for _, p := range items {
			if _, seen := pairs[p.Key]; !seen {
				keys = append(keys, p.Key)
			}
			pairs[p.Key] = p.Value
		}
	}
	return keys, pairs, nil
}

// Pair is one key and value of a map flag.
type Pair struct{ Key, Value string }

// SplitPairs reads one value of a map flag as the kubelet does: items
// split at commas, empty items skipped, each item split at its first sep,
// key and value trimmed of spaces. malformed lists the items without sep
// (an item of blanks among them), which the kubelet refuses.
func SplitPairs(value, sep string) (pairs []Pair, malformed []string) {
	for item := range strings.SplitSeq(value, ",") {
		if item == "" {
			continue
		}
		k, v, ok := strings.Cut(item, sep)
		if !ok {
			malformed = append(malformed, item)
			continue
		}
		pairs = append(pairs, Pair{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	return pairs, malformed
}

// Labels returns the node labels every --node-labels flag in flags gives
// together (see Pairs).
func Labels(flags []Flag) (keys []string, labels map[string]string, err error) {
	return Pairs(Values(flags, "node-labels"), "=")
}
