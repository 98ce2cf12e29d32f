package eksctlal2

import (
	"os"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// realOutput is what eksctl v0.215.0 writes (gunzipped) for a self-managed
// AL2 group with instanceType m5.large, maxPodsPerNode 58, labels
// team=payments, taint dedicated=payments:NoSchedule, kubeletExtraConfig
// imageGCHighThresholdPercent 80 and one preBootstrapCommand (written by
// test/tools/eksctl's eksctl-userdata).
func realOutput(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/eksctl-v0.215.0-al2.cloud-config")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func decodeString(s string) (Result, diag.List) {
	return Decode(userdata.Document{Source: diag.Source{URI: "imds://user-data", Line: 1}, Format: userdata.FormatCloudConfig, Data: []byte(s)})
}

func TestDecode(t *testing.T) {
	real := realOutput(t)
	cases := []struct {
		name   string
		data   string
		found  bool
		want   map[string]string // kubelet.config fields (JSON)
		flags  []string
		errors int
	}{
		{name: "eksctl v0.215.0 self-managed group", data: real, found: true,
			want: map[string]string{"maxPods": "58", "clusterDNS": `["10.100.0.10"]`, "imageGCHighThresholdPercent": "80"},
			flags: []string{"--node-labels=team=payments,alpha.eksctl.io/cluster-name=prod,alpha.eksctl.io/nodegroup-name=ng-1",
				"--register-with-taints=dedicated=payments:NoSchedule"}},
		{name: "the max-pods flag wins over kubelet-extra.json", found: true,
			data: strings.Replace(real, `'{"imageGCHighThresholdPercent":80}'`, `'{"maxPods":20,"imageGCHighThresholdPercent":80}'`, 1),
			want: map[string]string{"maxPods": "58", "imageGCHighThresholdPercent": "80"}},
		{name: "no maxPodsPerNode, kubelet-extra.json's maxPods", found: true,
			data: strings.Replace(strings.Replace(real, "MAX_PODS=58\n", "", 1), `'{"imageGCHighThresholdPercent":80}'`, `'{"maxPods":20}'`, 1),
			want: map[string]string{"maxPods": "20"}},
		{name: "a cloud-config that is not eksctl's", data: "#cloud-config\nruncmd:\n- [/etc/eks/bootstrap.sh, prod]\n"},
		{name: "kubelet.env without eksctl's script run", data: strings.Replace(real, "- - /var/lib/cloud/scripts/eksctl/bootstrap.al2.sh\n", "", 1)},
		{name: "kubelet.env with a command", found: true, errors: 1,
			data: strings.Replace(real, "    MAX_PODS=58\n", "    MAX_PODS=58\n    rm -rf /\n", 1)},
		{name: "kubelet-extra.json not an object", found: true, errors: 1,
			data: strings.Replace(real, `'{"imageGCHighThresholdPercent":80}'`, `'[1]'`, 1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, problems := decodeString(c.data)
			if res.Found != c.found {
				t.Fatalf("found %v, want %v (%v)", res.Found, c.found, problems)
			}
			if errs := problems.Filter(diag.SeverityError); len(errs) != c.errors {
				t.Fatalf("%d errors, want %d: %v", len(errs), c.errors, errs)
			}
			for k, v := range c.want {
				if got := string(res.Spec.Kubelet.Config[k]); got != v {
					t.Errorf("kubelet.config.%s = %s, want %s", k, got, v)
				}
			}
			for _, f := range c.flags {
				if !strings.Contains(strings.Join(res.Spec.Kubelet.Flags, " "), f) {
					t.Errorf("flags %q lack %q", res.Spec.Kubelet.Flags, f)
				}
			}
		})
	}
}

// TestDecodeIMDSLabels: eksctl's script adds two labels from instance
// metadata; Decode marks the spec for them (no warning: the agent adds
// them), and NodeLabels is what the script appends to NODE_LABELS.
func TestDecodeIMDSLabels(t *testing.T) {
	res, problems := decodeString(realOutput(t))
	if !res.Spec.Kubelet.EksctlIMDSLabels || len(problems) != 0 {
		t.Fatalf("EksctlIMDSLabels %v, problems %v", res.Spec.Kubelet.EksctlIMDSLabels, problems)
	}
	noHelper := strings.Replace(realOutput(t), "instance-life-cycle", "instance-type", 1)
	if res, _ := decodeString(noHelper); res.Spec.Kubelet.EksctlIMDSLabels {
		t.Error("EksctlIMDSLabels set for a script that does not read instance-life-cycle")
	}
}

func TestNodeLabels(t *testing.T) {
	cases := []struct {
		name string
		st   hub.InstanceStatus
		want string
	}{
		{name: "spot", st: hub.InstanceStatus{ID: "i-0abc", Lifecycle: "spot"}, want: "node-lifecycle=spot,alpha.eksctl.io/instance-id=i-0abc"},
		{name: "on-demand", st: hub.InstanceStatus{ID: "i-0abc", Lifecycle: "on-demand"}, want: "node-lifecycle=on-demand,alpha.eksctl.io/instance-id=i-0abc"},
		{name: "instance-life-cycle unread", st: hub.InstanceStatus{ID: "i-0abc"}, want: "alpha.eksctl.io/instance-id=i-0abc"},
		{name: "no instance metadata", want: ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := NodeLabels(c.st); got != c.want {
				t.Errorf("NodeLabels = %q, want %q", got, c.want)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(realOutput(f))
	f.Add("#cloud-config\nwrite_files:\n- path: /etc/eksctl/kubelet.env\n  content: X=$(id)\nruncmd:\n- /var/lib/cloud/scripts/eksctl/bootstrap.al2.sh\n")
	f.Fuzz(func(t *testing.T, s string) {
		res, problems := decodeString(s)
		if !res.Found && len(problems) > 0 {
			t.Fatalf("problems without eksctl's layout: %v", problems)
		}
	})
}
