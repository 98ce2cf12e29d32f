//go:build kubeletcompat

package kubeletcompat

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/config/kubeletflag"
)

// parseCase is one case of internal/config/kubeletflag/testdata/parse.json.
type parseCase struct {
	Name     string
	Args     []string
	Want     []kubeletflag.Flag
	Problems int
}

// TestFlagParsingMatchesKubelet runs the cases that pin kubeletflag.Parse
// through the real kubelets: a case Parse refuses must make the kubelet
// refuse its command line, and every flag Parse reads must end up with the
// value the kubelet prints for it when it accepts the command line (FLAG:
// lines at -v=1; an invalid
// --image-gc-high-threshold stops it right after it prints them).
func TestFlagParsingMatchesKubelet(t *testing.T) {
	data, err := os.ReadFile("../../internal/config/kubeletflag/testdata/parse.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []parseCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, k := range kubelets {
		t.Run(k.version, func(t *testing.T) {
			bin := kubeletBinary(t, k.path)
			for _, tc := range cases {
				t.Run(tc.Name, func(t *testing.T) {
					printed, refused, out := kubeletFlags(t, bin, tc.Args)
					if refused != (tc.Problems > 0) {
						t.Fatalf("kubelet refused the command line: %v; kubeletflag.Parse found %d problems\n%s", refused, tc.Problems, out)
					}
					if !refused {
						checkValues(t, tc, printed)
					}
				})
			}
		})
	}
}

// checkValues compares the value kubeletflag gives each flag of tc with
// what the kubelet printed.
func checkValues(t *testing.T, tc parseCase, printed map[string]string) {
	flags, _ := kubeletflag.Parse(tc.Args)
	for _, f := range flags {
		got, ok := printed[f.Name]
		if !ok {
			t.Errorf("the kubelet printed no --%s", f.Name)
			continue
		}
		if want := expectedPrint(f, flags); want != got {
			t.Errorf("--%s: kubeletflag gives %q, the kubelet runs with %q", f.Name, want, got)
		}
	}
}

// expectedPrint is how the kubelet prints the value kubeletflag gives the
// flag named like f: the last value, true for a bare boolean, the
// accumulated pairs (sorted by key) or list.
func expectedPrint(f kubeletflag.Flag, flags []kubeletflag.Flag) string {
	switch {
	case f.Name == "node-labels":
		_, m, _ := kubeletflag.Pairs(kubeletflag.Values(flags, f.Name), "=")
		var pairs []string
		for k, v := range m {
			pairs = append(pairs, k+"="+v)
		}
		slices.Sort(pairs)
		return strings.Join(pairs, ",")
	case f.Name == "cluster-dns":
		return "[" + strings.Join(strings.Split(strings.Join(kubeletflag.Values(flags, f.Name), ","), ","), ",") + "]"
	}
	v, _ := kubeletflag.Last(flags, f.Name)
	if !f.HasValue && kubeletflag.IsBool(f.Name) {
		return "true"
	}
	return v
}

var flagLine = regexp.MustCompile(`FLAG: --([a-z0-9-]+)=("(?:[^"\\]|\\.)*")`)

// kubeletFlags runs the kubelet on args and returns the flag values it
// printed, whether it refused the command line, and its output.
func kubeletFlags(t *testing.T, bin string, args []string) (map[string]string, bool, string) {
	t.Helper()
	// Bounded only to catch a hang: the kubelet stops within a second.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmdArgs := append([]string{"--v=1", "--image-gc-high-threshold=101"}, args...)
	out, _ := exec.CommandContext(ctx, bin, cmdArgs...).CombinedOutput()
	printed := map[string]string{}
	for _, m := range flagLine.FindAllStringSubmatch(string(out), -1) {
		if v, err := strconv.Unquote(m[2]); err == nil {
			printed[m[1]] = v
		}
	}
	refused := strings.Contains(string(out), "failed to parse kubelet flag") || strings.Contains(string(out), "unknown command")
	return printed, refused, string(out)
}

// helpLine is one flag of the kubelet's --help: name, then a type word
// unless the flag takes no separate value.
var helpLine = regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z0-9-]+)(?: (\S+))?\s{2,}`)

// backquotedBools are boolean flags whose help names a value in backquotes,
// which pflag prints where the type would be.
var backquotedBools = map[string]bool{"seccomp-default": true}

// TestFlagKindsMatchKubelet checks kubeletflag.IsBool and Accumulates
// against each kubelet's --help: flags printed without a type (or with an
// optional [=value]) take no separate value; list and map types add up.
func TestFlagKindsMatchKubelet(t *testing.T) {
	for _, k := range kubelets {
		t.Run(k.version, func(t *testing.T) {
			out, _ := exec.CommandContext(t.Context(), kubeletBinary(t, k.path), "--help").CombinedOutput()
			matches := helpLine.FindAllStringSubmatch(string(out), -1)
			if len(matches) < 100 {
				t.Fatalf("read only %d flags from --help:\n%s", len(matches), out)
			}
			for _, m := range matches {
				name, typ := m[1], m[2]
				noValue := typ == "" || strings.Contains(typ, "[=") || backquotedBools[name]
				if kubeletflag.IsBool(name) != noValue {
					t.Errorf("--%s %s: IsBool = %v, the kubelet's help says it takes no value: %v", name, typ, kubeletflag.IsBool(name), noValue)
				}
				adds := strings.HasPrefix(typ, "map") || typ == "strings" || strings.HasPrefix(typ, "colonSeparated")
				if kubeletflag.Accumulates(name) != adds {
					t.Errorf("--%s %s: Accumulates = %v, want %v", name, typ, kubeletflag.Accumulates(name), adds)
				}
			}
		})
	}
}
