package target

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/author/generate"
	"github.com/nodeboot/nodeboot/internal/author/nodegroup"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

const nodeConfigYAML = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      maxPods: 20\n"

func mime(parts ...string) string {
	var b strings.Builder
	b.WriteString("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"B\"\n\n")
	for _, p := range parts {
		ct, body, _ := strings.Cut(p, "\n")
		b.WriteString("--B\nContent-Type: " + ct + "\n\n" + body)
	}
	b.WriteString("--B--\n")
	return b.String()
}

// problem is an expected finding: severity, line and a message part.
type problem struct {
	severity diag.Severity
	line     int
	message  string
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target Target
		family generate.Family
		data   string
		want   []problem
	}{
		{name: "nodeconfig in a shell part", target: SelfManaged, family: generate.FamilyAL2023,
			data: mime("text/x-shellscript\n" + nodeConfigYAML),
			want: []problem{{diag.SeverityError, 7, "runs it as a shell script"}}},
		{name: "managed needs MIME", target: EKSManaged, family: generate.FamilyAL2023, data: nodeConfigYAML,
			want: []problem{{diag.SeverityError, 1, "only as MIME multipart"}}},
		{name: "karpenter wraps AL2 YAML as shell", target: Karpenter, family: generate.FamilyAL2, data: nodeConfigYAML,
			want: []problem{{diag.SeverityError, 1, "would be run as a shell script"}}},
		{name: "karpenter AL2023 YAML is fine", target: Karpenter, family: generate.FamilyAL2023, data: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags: [--v=2]\n"},
		{name: "AL2 does not read NodeConfig", target: SelfManaged, family: generate.FamilyAL2,
			data: mime("application/node.eks.aws\n" + nodeConfigYAML),
			want: []problem{{diag.SeverityWarning, 7, "does not read NodeConfig"}}},
		{name: "shell for bottlerocket", target: Karpenter, family: generate.FamilyBottlerocket, data: "#!/bin/bash\necho hi\n",
			want: []problem{{diag.SeverityError, 1, "must be TOML"}}},
		{name: "MIME for bottlerocket", target: EKSManaged, family: generate.FamilyBottlerocket,
			data: mime("application/toml\n[settings.kubernetes]\nmax-pods = 20\n"),
			want: []problem{{diag.SeverityError, 7, "never MIME"}}},
		{name: "TOML for AL2023", target: SelfManaged, family: generate.FamilyAL2023, data: "[settings.kubernetes]\ncluster-name = \"c\"\n",
			want: []problem{{diag.SeverityError, 1, "AL2023 nodes read"}}},
		{name: "windows needs powershell", target: SelfManaged, family: generate.FamilyWindows, data: "#!/bin/bash\necho hi\n",
			want: []problem{{diag.SeverityError, 1, "PowerShell in a <powershell> block"}}},
		{name: "windows powershell is fine", target: SelfManaged, family: generate.FamilyWindows, data: "<powershell>\nWrite-Host hi\n</powershell>\n"},
		{name: "managed user part calls bootstrap.sh", target: EKSManaged, family: generate.FamilyAL2,
			data: mime("text/x-shellscript\n#!/bin/bash\n/etc/eks/bootstrap.sh c\n"),
			want: []problem{
				{diag.SeverityWarning, 7, "bootstrapped twice"},
				{diag.SeverityWarning, 8, `cluster.name: "c" set here is overridden by the value EKS writes`},
			}},
		{name: "MNG TOML subset", target: EKSManaged, family: generate.FamilyBottlerocket,
			data: "[settings.kubernetes]\ncluster-name = \"c\"\nmax-pods = 20\n\n[settings.kubernetes.\"node.labels\"]\n\"a\\\"b\" = \"x\\\"y\"\n\n[settings.other]\nmixed = [1, 2.5]\nstrs = ['a', 1]\n",
			want: []problem{
				{diag.SeverityError, 5, "quoted dotted key"},
				{diag.SeverityError, 6, "holds a quote"},
				{diag.SeverityError, 6, "escaped quote"},
				{diag.SeverityError, 9, "mixes integer and float"},
				{diag.SeverityError, 10, "mixes string and integer"},
			}},
		{name: "karpenter model", target: Karpenter, family: generate.FamilyBottlerocket,
			data: "[settings.kubernetes]\ncluster-name = \"c\"\ncluster-dns-ip = [\"10.0.0.10\"]\nimage-gc-high-threshold-percent = 85\nkubelet-extra-config = \"eA==\"\n\n[settings.kubernetes.node-taints]\nteam = \"web:NoSchedule\"\n",
			want: []problem{
				{diag.SeverityError, 3, "takes a string here"},
				{diag.SeverityError, 4, "takes a string here"},
				{diag.SeverityWarning, 5, "drops it"},
				{diag.SeverityError, 7, "takes a table of string arrays"},
			}},
		{name: "karpenter always overrides maxPods and taints", target: Karpenter, family: generate.FamilyAL2023,
			data: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      maxPods: 20\n      registerWithTaints: [{key: a, effect: NoSchedule}]\n",
			want: []problem{
				{diag.SeverityWarning, 6, "overridden by the value Karpenter writes"},
				{diag.SeverityWarning, 7, "overridden by the value Karpenter writes"},
			}},
		{name: "self-managed merges nothing", target: SelfManaged, family: generate.FamilyAL2023, data: nodeConfigYAML},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, problems := userdata.Split(diag.Source{URI: "file:///u"}, []byte(tc.data))
			if problems.HasErrors() {
				t.Fatal(problems)
			}
			got := Check(docs, tc.target, tc.family, nil)
			sortByLine(got)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d problems, want %d:\n%v", len(got), len(tc.want), render(got))
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Severity != w.severity || g.Position.Line != w.line || !strings.Contains(g.Message, w.message) {
					t.Errorf("problem %d = %s; want %s at line %d with %q", i, g, w.severity, w.line, w.message)
				}
			}
		})
	}
}

// TestCheckWithGroup uses the node group: overrides carry the values.
func TestCheckWithGroup(t *testing.T) {
	d, problems := nodegroup.Read("file:///nodegroup.yaml", golden.Read(t, filepath.Join("..", "generate", "testdata", "nodegroup.yaml")))
	if problems.HasErrors() {
		t.Fatal(problems)
	}
	docs, _ := userdata.Split(diag.Source{URI: "file:///u"}, golden.Read(t, filepath.Join("..", "provenance", "testdata", "karpenter-user.yaml")))
	got := Check(docs, Karpenter, generate.FamilyAL2023, &d.Group)
	text := render(got)
	for _, want := range []string{`kubelet.maxPods: "110" set here is overridden by Karpenter's part 2 ("29")`, `taints: "team=web:NoSchedule" set here is overridden`} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
}

func TestParse(t *testing.T) {
	for _, target := range Targets() {
		if got, err := Parse(string(target)); err != nil || got != target {
			t.Errorf("Parse(%s) = %s, %v", target, got, err)
		}
	}
	if _, err := Parse("eks"); err == nil {
		t.Error("Parse(eks) accepted")
	}
}

func render(ps diag.List) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}

func sortByLine(ps diag.List) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].Position.Line < ps[j-1].Position.Line; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}
