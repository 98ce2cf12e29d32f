package validate

import (
	"slices"
	"strings"
	"testing"

	kubeletapis "k8s.io/kubelet/pkg/apis"
)

// TestFlagProblems checks what the kubelet (or the trip through systemd)
// would refuse in a normalized flag.
func TestFlagProblems(t *testing.T) {
	long := strings.Repeat("a", 64)
	for _, tc := range []struct {
		name, flag string
		want       []string // substrings, one per problem
	}{
		{name: "plain", flag: "--v=2"},
		{name: "no dashes", flag: "v=2", want: []string{"must start with --"}},
		{name: "no name", flag: "--=2", want: []string{"has no flag name"}},
		{name: "backslash", flag: `--node-labels=a=b\c`, want: []string{`contains '\\'`}},
		{name: "quote", flag: `--node-labels=a='b'x`, want: []string{`contains '\''`}},
		{name: "double quote", flag: `--v=2"`, want: []string{"has a quote that is never closed"}},
		{name: "non-breaking space", flag: "--node-labels=a=b\u00a0", want: []string{"contains a blank (U+00A0)"}},
		{name: "blank", flag: "--node-labels=a b", want: []string{"contains a blank (U+0020)"}},
		{name: "control", flag: "--v=2\x07", want: []string{"control character U+0007"}},
		{name: "labels", flag: "--node-labels=team=a,tier=b,,", want: nil},
		{name: "label not key=value", flag: "--node-labels=team", want: []string{`node label "team" is not key=value`}},
		{name: "label key invalid", flag: "--node-labels=-x=1", want: []string{`node label key "-x" is invalid`}},
		{name: "label value too long", flag: "--node-labels=a=" + long, want: []string{"has an invalid value \"aaaa"}},
		{name: "restricted label", flag: "--node-labels=node-role.kubernetes.io/worker=", want: []string{"node label node-role.kubernetes.io/worker is in the kubernetes.io/k8s.io namespace"}},
		{name: "allowed kubernetes.io labels", flag: "--node-labels=node.kubernetes.io/lifecycle=spot,kubernetes.io/os=linux,x.kubelet.kubernetes.io/a=b"},
		{name: "restricted k8s.io label", flag: "--node-labels=example.k8s.io/a=b", want: []string{"kubernetes.io/k8s.io namespace"}},
		{name: "two bad labels", flag: "--node-labels=a/b/c=1,d=@", want: []string{`node label key "a/b/c"`, "node label d has an invalid value"}},
		{name: "taints", flag: "--register-with-taints=a=b:NoSchedule,c:NoExecute"},
		{name: "no taints", flag: "--register-with-taints="},
		{name: "taint without effect", flag: "--register-with-taints=a=b", want: []string{`taint "a=b" has no effect`}},
		{name: "taint effect typo", flag: "--register-with-taints=a=b:NoSchedul", want: []string{"did you mean NoSchedule?"}},
		{name: "taint duplicate", flag: "--register-with-taints=a=b:NoSchedule,a=c:NoSchedule", want: []string{"repeats the key a with effect NoSchedule"}},
		{name: "taint value", flag: "--register-with-taints=a=b=c:NoSchedule", want: []string{"has more than one ="}},
		{name: "hostname", flag: "--hostname-override=ip-10-0-0-1.ec2.internal"},
		{name: "hostname upper case", flag: "--hostname-override=IP-10-0-0-1.EC2.INTERNAL"},
		{name: "hostname underscore", flag: "--hostname-override=my_node", want: []string{`--hostname-override "my_node" is not a valid node name`}},
		{name: "hostname empty", flag: "--hostname-override=", want: []string{"--hostname-override is empty"}},
		{name: "hostname too long", flag: "--hostname-override=" + strings.Repeat("a.", 130) + "b", want: []string{"must be no more than 253"}},
		{name: "other flag value not checked", flag: "--node-ip=x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := FlagProblems(tc.flag)
			if len(got) != len(tc.want) {
				t.Fatalf("FlagProblems(%q) = %q, want %d problems", tc.flag, got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

// TestIsKubeletLabelMatchesKubelet checks the written-out rule against the
// kubelet's own.
func TestIsKubeletLabelMatchesKubelet(t *testing.T) {
	keys := append(kubeletapis.KubeletLabels(), "node.kubernetes.io/x", "a.node.kubernetes.io/x", "kubelet.kubernetes.io/x",
		"b.kubelet.kubernetes.io/y", "node-role.kubernetes.io/worker", "kubernetes.io/x", "k8s.io/x", "team",
		"example.com/x", "xnode.kubernetes.io/x", "node.kubernetes.io", "topology.kubernetes.io/rack")
	for _, k := range keys {
		if got, want := IsKubeletLabel(k), kubeletapis.IsKubeletLabel(k); got != want {
			t.Errorf("IsKubeletLabel(%q) = %v, the kubelet says %v", k, got, want)
		}
	}
	if !slices.Contains(keys, "kubernetes.io/hostname") {
		t.Fatal("the kubelet's list changed shape")
	}
}
