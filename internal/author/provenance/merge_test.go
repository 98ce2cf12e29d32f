package provenance

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	v1alpha1 "github.com/nodeboot/nodeboot/api/nodegroup/v1alpha1"
	"github.com/nodeboot/nodeboot/internal/author/generate"
	"github.com/nodeboot/nodeboot/internal/author/nodegroup"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/fragment"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/merge"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/testing/golden"
)

func readGroup(t testing.TB, name string) v1alpha1.NodeGroup {
	t.Helper()
	d, problems := nodegroup.Read("file:///"+name, golden.Read(t, filepath.Join("..", "generate", "testdata", name)))
	if problems.HasErrors() {
		t.Fatal(problems)
	}
	return d.Group
}

func readUser(t testing.TB, name string) []userdata.Document {
	t.Helper()
	docs, problems := userdata.Split(diag.Source{URI: "file:///" + name}, golden.Read(t, filepath.Join("testdata", name)))
	if problems.HasErrors() {
		t.Fatal(problems)
	}
	return docs
}

// TestKarpenterOverridesNamed is the case Karpenter users hit: their
// NodeConfig sets taints and maxPods, and Karpenter's NodeConfig, merged
// last, replaces both.
func TestKarpenterOverridesNamed(t *testing.T) {
	r, err := Merge(generate.Input{Group: readGroup(t, "nodegroup.yaml"), Family: generate.FamilyAL2023, Producer: generate.ProducerKarpenter, User: readUser(t, "karpenter-user.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]diag.Problem{}
	for _, p := range r.Overrides() {
		got[p.Field] = p
	}
	for field, line := range map[string]int{
		"spec.kubelet.config[maxPods]":            6,
		"spec.kubelet.config[registerWithTaints]": 8,
	} {
		p, ok := got[field]
		if !ok || p.Position.Line != line || p.Source.URI != "file:///karpenter-user.yaml" || !strings.Contains(p.Message, "overridden by Karpenter's part 2") {
			t.Errorf("no override warning for %s on line %d; got %v", field, line, r.Overrides())
		}
	}
	if s := setting(r, "kubelet.maxPods"); s.Value != "29" || len(s.Overridden) != 1 || s.Overridden[0].Value != "110" {
		t.Errorf("kubelet.maxPods = %+v", s)
	}
	if s := setting(r, KeyTaints); s.Value != "dedicated=payments:NoSchedule,karpenter.sh/unregistered:NoExecute" || s.Overridden[0].Value != "team=web:NoSchedule" {
		t.Errorf("taints = %+v", s)
	}
	if s := setting(r, "labels[tier]"); s.Value != "frontend" || s.SetBy.Origin != generate.OriginUser || len(s.Overridden) != 0 {
		t.Errorf("a user label Karpenter does not set stays the user's: %+v", s)
	}
}

func setting(r Report, key string) Setting {
	for _, s := range r.Settings {
		if s.Key == key {
			return s
		}
	}
	return Setting{}
}

// reportCases are the merges whose text report is golden.
var reportCases = []struct {
	name     string
	family   generate.Family
	producer generate.Producer
	user     string
}{
	{"al2023-karpenter", generate.FamilyAL2023, generate.ProducerKarpenter, "karpenter-user.yaml"},
	{"al2-eks", generate.FamilyAL2, generate.ProducerEKS, "al2-user.mime"},
	{"bottlerocket-eks", generate.FamilyBottlerocket, generate.ProducerEKS, "eks-user.toml"},
	{"bottlerocket-karpenter", generate.FamilyBottlerocket, generate.ProducerKarpenter, "karpenter-user.toml"},
}

func TestReportGolden(t *testing.T) {
	for _, tc := range reportCases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Merge(generate.Input{Group: readGroup(t, "nodegroup.yaml"), Family: tc.family, Producer: tc.producer, User: readUser(t, tc.user)})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := r.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			b.WriteString("#### user data\n")
			b.Write(r.UserData)
			golden.CompareFile(t, filepath.Join("testdata", tc.name+".golden"), b.Bytes())
		})
	}
}

// TestPreviewMatchesUserData checks the preview against the user data it
// previews: decoding the merged user data as a node would and merging its
// documents gives exactly the settings the report lists, for every family
// nodeboot reads and every producer, with and without user parts.
func TestPreviewMatchesUserData(t *testing.T) {
	users := map[generate.Family]map[generate.Producer]string{
		generate.FamilyAL2023:       {generate.ProducerKarpenter: "karpenter-user.yaml"},
		generate.FamilyAL2:          {generate.ProducerEKS: "al2-user.mime"},
		generate.FamilyBottlerocket: {generate.ProducerEKS: "eks-user.toml", generate.ProducerKarpenter: "karpenter-user.toml"},
	}
	for _, group := range []string{"nodegroup.yaml", "minimal.yaml"} {
		for _, f := range []generate.Family{generate.FamilyAL2, generate.FamilyAL2023, generate.FamilyBottlerocket} {
			for _, p := range generate.Producers() {
				if f == generate.FamilyAL2 && p == generate.ProducerEksctl {
					continue // cloud-config: nodeboot does not read it
				}
				inputs := []string{""}
				if u := users[f][p]; u != "" {
					inputs = append(inputs, u)
				}
				for _, user := range inputs {
					t.Run(fmt.Sprintf("%s/%s-%s/%s", group, f, p, user), func(t *testing.T) {
						in := generate.Input{Group: readGroup(t, group), Family: f, Producer: p}
						if user != "" {
							in.User = readUser(t, user)
						}
						r, err := Merge(in)
						if err != nil {
							t.Fatal(err)
						}
						want := map[string]string{}
						for _, s := range r.Settings {
							want[s.Key] = s.Value
						}
						if got := settingsOf(t, r.UserData); !maps.Equal(got, want) {
							t.Errorf("decoded user data:\n%v\npreview:\n%v\nuser data:\n%s", got, want, r.UserData)
						}
					})
				}
			}
		}
	}
}

// settingsOf reads user data as the node does and flattens the result.
func settingsOf(t *testing.T, data []byte) map[string]string {
	t.Helper()
	docs, problems := userdata.Split(diag.Source{URI: "final"}, data)
	var specs []hub.Spec
	for _, d := range docs {
		frags, p := fragment.Decode(d)
		problems = append(problems, p...)
		for _, f := range frags {
			specs = append(specs, f.Spec)
		}
	}
	if problems.HasErrors() {
		t.Fatalf("the merged user data does not decode: %v", problems)
	}
	var entries []entry
	for _, s := range specs {
		for _, a := range flatten(s) {
			entries = append(entries, entry{assignment: a})
		}
	}
	out := map[string]string{}
	for _, s := range fold(entries) {
		out[s.Key] = s.Value
	}
	if _, err := merge.Specs(specs...); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAlwaysWrittenMatchesParts checks generate.AlwaysWritten against the
// parts nodeboot can read: every setting it claims the producer writes is
// in the decoded generated part.
func TestAlwaysWrittenMatchesParts(t *testing.T) {
	g := readGroup(t, "minimal.yaml")
	g.Spec.Cluster.APIServerEndpoint = "https://cluster.example"
	g.Spec.Cluster.CIDR = "10.100.0.0/16"
	g.Spec.Cluster.CertificateAuthority = readGroup(t, "nodegroup.yaml").Spec.Cluster.CertificateAuthority
	g.Spec.InstanceType = "m5.large"
	for _, f := range []generate.Family{generate.FamilyAL2, generate.FamilyAL2023, generate.FamilyBottlerocket} {
		for _, p := range []generate.Producer{generate.ProducerEKS, generate.ProducerKarpenter} {
			t.Run(fmt.Sprintf("%s-%s", f, p), func(t *testing.T) {
				out, err := generate.Generate(generate.Input{Group: g, Family: f, Producer: p})
				if err != nil {
					t.Fatal(err)
				}
				gen := out.Parts[len(out.Parts)-1]
				if f == generate.FamilyBottlerocket && p == generate.ProducerEKS {
					gen = out.Parts[0]
				}
				frags, problems := fragment.Decode(userdata.Document{Source: gen.Source, Format: gen.Format, Data: gen.Body})
				if problems.HasErrors() || len(frags) != 1 {
					t.Fatalf("generated part does not decode: %v", problems)
				}
				decoded := map[string]bool{}
				for _, a := range flatten(frags[0].Spec) {
					decoded[a.key] = true
				}
				for _, a := range flatten(generate.AlwaysWritten(f, p)) {
					if strings.HasPrefix(a.key, labelKeyPrefix) {
						continue // the placeholder group's name differs
					}
					if !decoded[a.key] {
						t.Errorf("AlwaysWritten claims %s, which the generated part does not set", a.key)
					}
				}
			})
		}
	}
}

func TestAlwaysOverridden(t *testing.T) {
	docs := readUser(t, "karpenter-user.yaml")
	got := AlwaysOverridden(docs, generate.FamilyAL2023, generate.ProducerKarpenter)
	fields := map[string]int{}
	for _, p := range got {
		fields[p.Field] = p.Position.Line
	}
	want := map[string]int{"spec.kubelet.config[maxPods]": 6, "spec.kubelet.config[registerWithTaints]": 8}
	if !maps.Equal(fields, want) {
		t.Fatalf("warnings at %v, want %v:\n%v", fields, want, got)
	}
	eks := AlwaysOverridden(readUser(t, "eks-user.toml"), generate.FamilyBottlerocket, generate.ProducerEKS)
	eksFields := map[string]bool{}
	for _, p := range eks {
		eksFields[p.Field] = strings.Contains(p.Message, "wins over the value EKS writes")
	}
	wantEKS := map[string]bool{"spec.kubelet.config[maxPods]": true, "spec.kubelet.config[clusterDNS]": true, "spec.kubelet.flags[0]": true}
	if !maps.Equal(eksFields, wantEKS) {
		t.Fatalf("EKS Bottlerocket: %v", eks)
	}
}
