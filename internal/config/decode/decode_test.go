package decode

import (
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/config/diag"
)

func TestNodeConfigStructure(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []want
	}{
		{name: "valid minimal", input: eks + "  cluster:\n    name: c\n"},
		{name: "json input", input: `{"apiVersion": "node.eks.aws/v1alpha1", "kind": "NodeConfig",
 "spec": {"cluster": {"name": "c", "cidr": "10.100.0.1/16"}}}`,
			want: []want{{"spec.cluster.cidr", 6, 44, "is not a network address"}}},
		{name: "unclosed flow list is reported at the end", input: eks + "  cluster:\n    name: c\n  kubelet: {flags: [\n",
			want: []want{{"", 11, 0, "YAML syntax error: did not find expected node content"}}},
		{name: "scanner syntax error", input: eks + "  cluster:\n    name: c\n  kubelet:\n    flags: [a]]\n",
			want: []want{{"", 11, 0, "YAML syntax error: did not find expected key"}}},
		{name: "syntax error in second document", input: eks + "  cluster: {name: c}\n---\n" + eks + "  cluster:\n    name: 'c\n",
			want: []want{{"", 14, 0, "YAML syntax error: found unexpected end of stream"}}},
		{name: "parser syntax error line is made 1-based", input: eks + "  cluster:\n    name: c\n   cidr: x\n",
			want: []want{{"", 10, 0, "YAML syntax error: did not find expected key"}}},
		{name: "tab indentation", input: eks + "\tcluster: {}\n",
			want: []want{{"", 8, 0, "YAML syntax error: found character that cannot start any token"}}},
		{name: "root is a list", input: "- a\n- b\n",
			want: []want{{"", 5, 1, "a NodeConfig must be a mapping with apiVersion, kind and spec, got a list"}}},
		{name: "empty document", input: "# nothing here\n",
			want: []want{{"", 5, 0, "no NodeConfig found: the document is empty"}}},
		{name: "missing apiVersion", input: "kind: NodeConfig\nspec:\n  cluster: {name: c}\n",
			want: []want{{"apiVersion", 5, 1, "missing; add apiVersion: node.eks.aws/v1alpha1 or nodeboot.io/v1alpha1"}}},
		{name: "apiVersion typo", input: "apiVersion: node.eks.aws/v1alpha\nkind: NodeConfig\nspec: {}\n",
			want: []want{{"apiVersion", 5, 13, `unknown apiVersion "node.eks.aws/v1alpha"; did you mean node.eks.aws/v1alpha1?`}}},
		{name: "apiVersion v1beta1", input: "apiVersion: node.eks.aws/v1beta1\nkind: NodeConfig\nspec: {}\n",
			want: []want{{"apiVersion", 5, 13, "did you mean node.eks.aws/v1alpha1?"}}},
		{name: "apiVersion unrelated", input: "apiVersion: v1\nkind: NodeConfig\nspec: {}\n",
			want: []want{{"apiVersion", 5, 13, `unknown apiVersion "v1" (known: node.eks.aws/v1alpha1 or nodeboot.io/v1alpha1)`}}},
		{name: "apiVersion not a string", input: "apiVersion: 1\nkind: NodeConfig\nspec: {}\n",
			want: []want{{"apiVersion", 5, 13, "expected a string, got an integer (1)"}}},
		{name: "missing kind", input: "apiVersion: node.eks.aws/v1alpha1\nspec: {}\n",
			want: []want{{"kind", 5, 1, "missing; add kind: NodeConfig"}}},
		{name: "wrong kind", input: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfiguration\nspec: {}\n",
			want: []want{{"kind", 6, 7, `unknown kind "NodeConfiguration"; it must be NodeConfig`}}},
		{name: "missing spec", input: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n",
			want: []want{{"spec", 5, 1, "missing; a NodeConfig needs a spec"}}},
		{name: "unknown field with suggestion", input: eks + "  cluster:\n    apiServerEndPoint: https://x\n",
			want: []want{{"spec.cluster.apiServerEndPoint", 9, 5, `unknown field "apiServerEndPoint"; did you mean "apiServerEndpoint"?`}}},
		{name: "unknown field lists known", input: eks + "  cluster:\n    region: us-west-2\n",
			want: []want{{"spec.cluster.region", 9, 5, `unknown field "region"; known fields: apiServerEndpoint, certificateAuthority, cidr, enableOutpost, id, name`}}},
		{name: "field indented one level too little", input: eks + "  cluster:\n  name: c\n",
			want: []want{
				{"spec.cluster", 8, 11, "null is not allowed here; give a mapping"},
				{"spec.name", 9, 3, `unknown field "name"; spec.cluster has a field "name": is it indented under cluster?`},
			}},
		{name: "unknown top-level field", input: eks + "  cluster: {}\nstatus: {}\n",
			want: []want{{"status", 9, 1, `unknown field "status"`}}},
		{name: "extension in node.eks.aws", input: eks + "  identity:\n    mode: BootstrapToken\n",
			want: []want{{"spec.identity", 8, 3, `unknown field "identity"; it is a nodeboot extension: set apiVersion: nodeboot.io/v1alpha1 to use it`}}},
		{name: "extension in nodeboot.io", input: nb + "  cluster:\n    ipFamily: ipv6\n  maxPods: {cap: true}\n"},
		{name: "mapping where list expected", input: eks + "  kubelet:\n    flags: {a: b}\n",
			want: []want{{"spec.kubelet.flags", 9, 12, "expected a list, got a mapping"}}},
		{name: "scalar where list expected", input: eks + "  kubelet:\n    flags: --v=2\n",
			want: []want{{"spec.kubelet.flags", 9, 12, `expected a list, got a string ("--v=2"); write one item per line, each starting with "- "`}}},
		{name: "list where mapping expected", input: eks + "  cluster:\n  - name: c\n",
			want: []want{{"spec.cluster", 9, 3, "expected a mapping, got a list"}}},
		{name: "scalar where mapping expected", input: eks + "  cluster: my-cluster\n",
			want: []want{{"spec.cluster", 8, 12, `expected a mapping, got a string ("my-cluster")`}}},
		{name: "integer for string", input: eks + "  cluster:\n    id: 1234\n",
			want: []want{{"spec.cluster.id", 9, 9, "expected a string, got an integer (1234); put it in quotes"}}},
		{name: "yes for boolean", input: eks + "  cluster:\n    enableOutpost: yes\n    id: x\n",
			want: []want{{"spec.cluster.enableOutpost", 9, 20, `yes is a string in YAML 1.2; nodeadm's YAML 1.1 reader takes it as true; write true`}}},
		{name: "quoted boolean", input: eks + "  featureGates:\n    FastImagePull: \"true\"\n",
			want: []want{{"spec.featureGates[FastImagePull]", 9, 20, "expected a boolean"}}},
		{name: "quoted integer", input: nb + "  maxPods:\n    maxENIs: \"2\"\n",
			want: []want{{"spec.maxPods.maxENIs", 9, 14, `expected an integer, got a string ("2"); remove the quotes`}}},
		{name: "float for integer", input: nb + "  maxPods:\n    maxENIs: 2.5\n",
			want: []want{{"spec.maxPods.maxENIs", 9, 14, "expected an integer, got a number (2.5)"}}},
		{name: "integer overflow", input: eks + "  kubelet:\n    config:\n      maxPods: 4294967296\n",
			want: []want{{"spec.kubelet.config[maxPods]", 10, 16, "4294967296 does not fit: must be between -2147483648 and 2147483647"}}},
		{name: "negative unsigned", input: eks + "  kubelet:\n    config:\n      logging: {verbosity: -1}\n",
			want: []want{{"spec.kubelet.config[logging].verbosity", 10, 28, "-1 is negative; give 0 or more"}}},
		{name: "duplicate key", input: eks + "  cluster:\n    name: a\n    cidr: 10.0.0.0/16\n    name: b\n",
			want: []want{{"spec.cluster.name", 11, 5, `duplicate key "name" (first at line 9); nodeadm uses the later value, and so does this boot`}}},
		{name: "duplicate map key", input: eks + "  featureGates:\n    FastImagePull: true\n    FastImagePull: false\n",
			want: []want{{"spec.featureGates[FastImagePull]", 10, 5, `duplicate key "FastImagePull"`}}},
		{name: "null string", input: eks + "  cluster:\n    name:\n",
			want: []want{{"spec.cluster.name", 9, 10, "null is not allowed here; give a string or remove the key"}}},
		{name: "null section", input: eks + "  kubelet:\n",
			want: []want{{"spec.kubelet", 8, 11, "null is not allowed here; give a mapping or remove the key"}}},
		{name: "null list item", input: eks + "  kubelet:\n    flags:\n    - --v=2\n    -\n",
			want: []want{{"spec.kubelet.flags[1]", 11, 6, "null is not allowed here; give a string"}}},
		{name: "null in kubelet config unsets", input: eks + "  kubelet:\n    config:\n      maxPods: null\n      kubeReserved: ~\n"},
		{name: "mapping key not a string", input: eks + "  featureGates:\n    ? [a]\n    : true\n",
			want: []want{{"spec.featureGates", 9, 7, "mapping keys must be strings, got a list"}}},
		{name: "merge key", input: eks + "  cluster:\n    <<: {name: c}\n",
			want: []want{{"spec.cluster", 9, 5, "YAML merge keys (<<) are YAML 1.1; nodeadm merges them"}}},
		{name: "aliased apiVersion", input: "metadata: {v: &v node.eks.aws/v1alpha1}\napiVersion: *v\nkind: NodeConfig\nspec: {}\n"},
		{name: "aliases are followed", input: eks + "  instance:\n    environment:\n      default: &env {A: b}\n      kubelet: *env\n"},
		{name: "alias bomb", input: aliasBomb(),
			want: []want{{"", 8, 27, "document is too large: it expands to more than 50000 YAML nodes"}}},
		{name: "unknown tag", input: eks + "  containerd:\n    baseRuntimeSpec:\n      process: !custom x\n",
			want: []want{{"spec.containerd.baseRuntimeSpec[process]", 10, 16, "unsupported YAML tag !custom"}}},
		{name: "infinity in JSON", input: eks + "  containerd:\n    baseRuntimeSpec:\n      x: [1, .inf]\n",
			want: []want{{"spec.containerd.baseRuntimeSpec[x][1]", 10, 14, "JSON cannot hold .inf"}}},
		{name: "base runtime spec not an object", input: eks + "  containerd:\n    baseRuntimeSpec: [a]\n",
			want: []want{{"spec.containerd.baseRuntimeSpec", 9, 22, "expected a mapping, got a list"}}},
		{name: "metadata is free-form", input: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nmetadata: {name: x, labels: {a: b}}\nspec: {}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, problems := decodeString(tc.input)
			assertProblems(t, problems, tc.want)
		})
	}
}

// TestNodeBudgetOneError checks that a document past the node budget gets
// the budget error and nothing about the values left undecoded, and that
// thousands of real problems are cut to diag.MaxProblems and a summary.
func TestNodeBudgetOneError(t *testing.T) {
	flags := func(item string, n int) string {
		return eks + "  kubelet:\n    flags: [" + strings.TrimSuffix(strings.Repeat(item+", ", n), ", ") + "]\n"
	}
	t.Run("budget spent on flags", func(t *testing.T) {
		input := "metadata: {s: &s --v=2}\n" + flags("*s", 60_000)
		_, problems := decodeString(input)
		if len(problems) != 1 || !strings.Contains(problems[0].Message, "document is too large") {
			t.Fatalf("want only the budget error, got %d problems; first: %v", len(problems), problems[:min(3, len(problems))])
		}
	})
	t.Run("thousands of problems", func(t *testing.T) {
		_, problems := decodeString(flags("x", 3000))
		if len(problems) != diag.MaxProblems+1 {
			t.Fatalf("%d problems", len(problems))
		}
		if last := problems[diag.MaxProblems]; last.Severity != diag.SeverityError || !strings.Contains(last.Message, "2900 more problems") {
			t.Errorf("summary = %s", last)
		}
	})
}

// aliasBomb nests aliases so the document expands to 10^6 nodes.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("apiVersion: nodeboot.io/v1alpha1\nkind: NodeConfig\nmetadata:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 6; i++ {
		b.WriteString("  a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	b.WriteString("spec: {}\n")
	return b.String()
}

func TestParentPath(t *testing.T) {
	tests := []struct{ name, path, want string }{
		{name: "field", path: "spec.cluster.cidr", want: "spec.cluster"},
		{name: "index", path: "spec.kubelet.flags[2]", want: "spec.kubelet.flags"},
		{name: "key with dots", path: "spec.kubelet.config[evictionHard][memory.available]", want: "spec.kubelet.config[evictionHard]"},
		{name: "field under key", path: "spec.kubelet.config[authentication].x509", want: "spec.kubelet.config[authentication]"},
		{name: "top level", path: "spec", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parentPath(tc.path); got != tc.want {
				t.Errorf("parentPath(%q) = %q, want %q", tc.path, got, tc.want)
			}
		})
	}
}

// TestUnknownFieldsStrictOnly checks which unknown-field errors a boot may
// downgrade: those of node.eks.aws documents (nodeadm drops such fields),
// in kubelet.config too, never those of nodeboot.io documents.
func TestUnknownFieldsStrictOnly(t *testing.T) {
	body := "  cluster:\n    name: c\n    clusterEndpoint: https://x\n  kubelet:\n    config:\n      maxPod: 3\n"
	for _, tc := range []struct {
		header     string
		strictOnly bool
	}{{eks, true}, {nb, false}} {
		_, problems := decodeString(tc.header + body)
		if len(problems) != 2 {
			t.Fatalf("%s: problems:\n%s", tc.header, renderProblems(problems))
		}
		for _, p := range problems {
			if !strings.Contains(p.Message, "unknown field") || p.StrictOnly != tc.strictOnly {
				t.Errorf("%s: %s (StrictOnly %v)", tc.header, p, p.StrictOnly)
			}
		}
	}
	_, problems := decodeString(eks + "  cluster:\n    name: 3\n")
	if len(problems) != 1 || problems[0].StrictOnly {
		t.Errorf("a type error is StrictOnly: %v", problems)
	}
}

// TestValuesNodeadmAcceptsStrictOnly checks that a value nodeadm writes as
// it is (a certificateAuthority that is no PEM certificate: nodeadm's own
// e2e cases use one) only warns at boot in a node.eks.aws document, and
// stays an error in a nodeboot.io document.
func TestValuesNodeadmAcceptsStrictOnly(t *testing.T) {
	body := "  cluster:\n    name: c\n    apiServerEndpoint: https://example.com\n    certificateAuthority: Y2VydGlmaWNhdGVBdXRob3JpdHk=\n    cidr: 10.100.0.0/16\n"
	for _, tc := range []struct {
		header     string
		strictOnly bool
	}{{eks, true}, {nb, false}} {
		_, problems := decodeString(tc.header + body)
		if len(problems) != 1 || !strings.Contains(problems[0].Message, "PEM") || problems[0].StrictOnly != tc.strictOnly {
			t.Errorf("%s: problems (want one PEM problem, StrictOnly %v):\n%s", tc.header, tc.strictOnly, renderProblems(problems))
		}
	}
}
