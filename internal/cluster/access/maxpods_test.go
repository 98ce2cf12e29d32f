package access

import (
	"maps"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/maxpods/celexpr"
)

// TestUserDataMaxPods predicts the max pods a launch template's user data
// gives each instance type, in every format the agent boots, by the
// agent's own rule (m5.large: 3 ENIs × 10 IPv4: 29 by the formula, 9 on
// Windows; t3.nano: 2 × 2: 4).
func TestUserDataMaxPods(t *testing.T) {
	const mime = "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"==B==\"\n\n"
	cases := []struct {
		name     string
		userData string
		types    []string
		windows  bool
		want     map[string]int32
	}{
		{name: "no user data: the formula", types: []string{"m5.large", "t3.nano"}, want: map[string]int32{"m5.large": 29, "t3.nano": 4}},
		{name: "NodeConfig kubelet.config.maxPods", userData: nodeConfigUserData, types: []string{"m5.large"}, want: map[string]int32{"m5.large": 58}},
		{name: "bootstrap.sh --kubelet-extra-args --max-pods",
			userData: "#!/bin/bash\n/etc/eks/bootstrap.sh prod --use-max-pods false --kubelet-extra-args '--max-pods=20 --node-labels=a=b'\n",
			types:    []string{"m5.large", "unknown.type"}, want: map[string]int32{"m5.large": 20, "unknown.type": 20}},
		{name: "bootstrap.sh --use-max-pods false: the kubelet's default",
			userData: "#!/bin/bash\n/etc/eks/bootstrap.sh prod --use-max-pods false\n", types: []string{"m5.large"}, want: map[string]int32{"m5.large": 110}},
		{name: "bootstrap.sh extra args with the defaults", userData: "#!/bin/bash\nset -ex\n/etc/eks/bootstrap.sh prod --kubelet-extra-args \"--max-pods 17\"\n",
			types: []string{"m5.large"}, want: map[string]int32{"m5.large": 17}},
		{name: "Bottlerocket settings.kubernetes.max-pods",
			userData: "[settings.kubernetes]\ncluster-name = \"prod\"\napi-server = \"https://example.com\"\ncluster-certificate = \"Y2E=\"\nmax-pods = 35\n",
			types:    []string{"m5.large"}, want: map[string]int32{"m5.large": 35}},
		{name: "MIME: the later part wins, as the agent merges",
			userData: mime + "--==B==\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      maxPods: 40\n" +
				"--==B==\nContent-Type: text/x-shellscript\n\n#!/bin/bash\n/etc/eks/bootstrap.sh prod --kubelet-extra-args '--max-pods=12'\n--==B==--\n",
			types: []string{"m5.large"}, want: map[string]int32{"m5.large": 12}},
		{name: "maxPodsExpression evaluated", userData: mime + "--==B==\nContent-Type: application/node.eks.aws\n\napiVersion: nodeboot.io/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: prod\n  kubelet:\n    maxPodsExpression: \"default_enis * (ips_per_eni - 1)\"\n--==B==--\n",
			types: []string{"m5.large"}, want: map[string]int32{"m5.large": 27}},
		{name: "Windows: IPv4 per ENI − 1", userData: "<powershell>\n& $EKSBootstrapScriptFile -EKSClusterName prod\n</powershell>",
			types: []string{"m5.large", "unknown.type"}, windows: true, want: map[string]int32{"m5.large": 9}},
		{name: "unknown instance type: no prediction", types: []string{"unknown.type"}, want: map[string]int32{}},
	}
	r := Resolver{Expressions: celexpr.Evaluator{}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := r.userDataMaxPods([]byte(tc.userData), tc.types, tc.windows)
			if !maps.Equal(got, tc.want) {
				t.Errorf("max pods %v, want %v", got, tc.want)
			}
		})
	}
}
