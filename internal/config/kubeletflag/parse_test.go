package kubeletflag

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// ParseCase is one case of testdata/parse.json, which pins how the
// kubelet's parser reads its words. test/kubeletcompat runs the same cases
// through real kubelets 1.28, 1.31 and 1.34; "was" says which of the copies
// this package replaced read the case differently.
type ParseCase struct {
	Name     string
	Args     []string
	Want     []Flag
	Problems int
	Was      string
}

// TestParse runs testdata/parse.json through Parse.
func TestParse(t *testing.T) {
	data, err := os.ReadFile("testdata/parse.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []ParseCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			got, probs := Parse(tc.Args)
			if !reflect.DeepEqual(got, tc.Want) || len(probs) != tc.Problems {
				t.Errorf("Parse(%q) = %+v, %v; want %+v and %d problems", tc.Args, got, probs, tc.Want, tc.Problems)
			}
		})
	}
}

// TestRepeatedFlags pins what a repeated flag ends up as, as the real
// kubelet 1.34 printed it with --v=1 (FLAG: lines).
func TestRepeatedFlags(t *testing.T) {
	args := strings.Fields(`--max_pods=5 --max-pods=7 --node-labels=a=b --node-labels=c=d,,a=z` +
		` --register-with-taints=a=b:NoSchedule --register-with-taints=c=d:NoExecute --hostname_override=foo`)
	flags, probs := Parse(args)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	for name, want := range map[string]string{"max-pods": "7", "register-with-taints": "c=d:NoExecute", "hostname-override": "foo"} {
		if got, ok := Last(flags, name); !ok || got != want {
			t.Errorf("Last(%s) = %q, %v; want %q", name, got, ok, want)
		}
	}
	keys, labels, err := Labels(flags)
	if err != nil || !reflect.DeepEqual(keys, []string{"a", "c"}) || !reflect.DeepEqual(labels, map[string]string{"a": "z", "c": "d"}) {
		t.Errorf("Labels = %q, %v, %v; want a=z and c=d, in that order", keys, labels, err)
	}
	for _, name := range []string{"node-labels", "kube-reserved", "eviction-hard", "cluster-dns"} {
		if !Accumulates(name) {
			t.Errorf("%s accumulates in the kubelet", name)
		}
	}
	for _, name := range []string{"max-pods", "register-with-taints", "hostname-override"} {
		if Accumulates(name) {
			t.Errorf("%s keeps its last value in the kubelet", name)
		}
	}
}

func TestPairs(t *testing.T) {
	tests := []struct {
		name     string
		values   []string
		sep      string
		wantKeys []string
		want     map[string]string
		wantErr  bool
	}{
		{name: "trimmed and empty items skipped", values: []string{" c = d ,,a=b"}, sep: "=", wantKeys: []string{"c", "a"}, want: map[string]string{"c": "d", "a": "b"}},
		{name: "later key wins, first position kept", values: []string{"a=1,b=2", "a=3"}, sep: "=", wantKeys: []string{"a", "b"}, want: map[string]string{"a": "3", "b": "2"}},
		{name: "value may hold the separator", values: []string{"a=b=c"}, sep: "=", wantKeys: []string{"a"}, want: map[string]string{"a": "b=c"}},
		{name: "thresholds", values: []string{"memory.available<1Gi", "nodefs.available<5%"}, sep: "<", wantKeys: []string{"memory.available", "nodefs.available"}, want: map[string]string{"memory.available": "1Gi", "nodefs.available": "5%"}},
		{name: "malformed", values: []string{"a=b,c"}, sep: "=", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			keys, got, err := Pairs(tc.values, tc.sep)
			if (err != nil) != tc.wantErr || (!tc.wantErr && (!reflect.DeepEqual(keys, tc.wantKeys) || !reflect.DeepEqual(got, tc.want))) {
				t.Errorf("Pairs(%q) = %q, %v, %v", tc.values, keys, got, err)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		name, word string
		want       Flag
		ok         bool
	}{
		{name: "name=value", word: "--max-pods=5", want: Flag{Name: "max-pods", Value: "5", HasValue: true}, ok: true},
		{name: "underscores", word: "--max_pods=5", want: Flag{Name: "max-pods", Value: "5", HasValue: true}, ok: true},
		{name: "boolean", word: "--fail-swap-on", want: Flag{Name: "fail-swap-on"}, ok: true},
		{name: "value flag without its value", word: "--max-pods"},
		{name: "single dash", word: "-max-pods=5"},
		{name: "short v", word: "-v=2", want: Flag{Name: "v", Value: "2", HasValue: true}, ok: true},
		{name: "not a flag", word: "max-pods=5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Split(tc.word)
			if ok != tc.ok || got != tc.want {
				t.Errorf("Split(%q) = %+v, %v; want %+v, %v", tc.word, got, ok, tc.want, tc.ok)
			}
		})
	}
}
