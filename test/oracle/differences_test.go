//go:build oracle

package oracle

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/nodetest"
	"github.com/nodeboot/nodeboot/internal/testing/nodeview"
)

// deliberate is one documented difference between the nodes nodeadm and
// nodeboot configure from the same input.
type deliberate struct {
	id string
	// paths are nodeview paths: * matches within one dotted segment, **
	// anything.
	paths []string
	// when, if set, narrows the difference to these values.
	when func(d nodeview.Difference) bool
	// inputs, if set, narrows the difference to the named inputs (the
	// pair's name: a hand-written input's).
	inputs []string
	// reason says why nodeboot differs.
	reason string
	// doc is the docs file and a phrase of the line that tells users.
	doc, docLine string
}

// differences is the table of deliberate differences (docs/nodeadm-oracle.md
// lists it); each entry names the docs line that tells users. Anything else
// that differs is a test failure.
var differences = []deliberate{
	{
		id:    "kubeconfig-exec-never-interactive",
		paths: []string{"kubeconfig.users[*].user.exec.interactiveMode", "bootstrap-kubeconfig.users[*].user.exec.interactiveMode"},
		when:  func(d nodeview.Difference) bool { return d.A == "" && d.B == `"Never"` },
		reason: "the kubelet never has a terminal: interactiveMode Never makes client-go fail instead of probing stdin " +
			"for a prompt; nodeadm leaves the default, which behaves the same on a node",
		doc: "docs/architecture.md", docLine: "| kubeconfig `exec` |",
	},
	{
		id:     "kube-reserved-from-effective-max-pods",
		paths:  []string{"kubelet.config.kubeReserved.memory"},
		reason: "kubeReserved follows the max pods the kubelet runs with (user maxPods or expression), not nodeadm's formula value",
		doc:    "docs/architecture.md", docLine: "| `kubeReserved.memory` | from the computed max pods |",
	},
	{
		id:    "config-check-refuses-what-init-boots",
		paths: []string{"exit.config-check"},
		when:  func(d nodeview.Difference) bool { return nodetest.OnlyNodeadmAccepted(d.B) },
		reason: "config check is strict: it refuses values nodeadm writes as they are (a CA that is no PEM certificate, " +
			"a CIDR with host bits), each marked [nodeadm accepts this: init only warns]; init boots them",
		doc: "docs/user-data.md", docLine: "`config check` and `init --strict` also refuse values nodeadm writes as they are",
	},
	{
		id:    "local-disks-set-up-in-process",
		paths: []string{"file:/var/log/setup-local-disks.log"},
		when:  func(d nodeview.Difference) bool { return d.B == "" },
		reason: "nodeboot sets up instance-store disks itself (internal/node/localdisk) instead of running the AMI's " +
			"setup-local-disks script; the case's node has no instance-store disk, so nodeboot does nothing",
		doc: "docs/local-storage.md", docLine: "nodeboot sets up EC2 instance-store NVMe disks in the run phase",
	},
	{
		id:    "run-phase-restarts-daemons",
		paths: []string{"systemd.calls"},
		when: func(d nodeview.Difference) bool {
			return d.A != "" && strings.ReplaceAll(d.A, `"StartUnit `, `"RestartUnit `) == d.B
		},
		reason: "the run phase restarts containerd and the kubelet, so a daemon that is already running picks up the " +
			"files just written; nodeadm starts them, which leaves a running one as it was",
		doc: "docs/architecture.md", docLine: "| daemons in the run phase |",
	},
	{
		id:    "registration-wait",
		paths: []string{"argv.registration-timeout"},
		reason: "init's run phase waits for the Node to register and runs the doctor when it does not (nodeadm returns " +
			"once the kubelet is started); the oracle has no API server, so nodeboot runs with --registration-timeout=0 " +
			"there (the e2e suite tests the wait)",
		doc: "README.md", docLine: "`init`'s run phase waits `--registration-timeout` (5m) for the Node",
	},
	{
		id:     "second-document-of-a-part-merged",
		paths:  []string{"kubelet.flag.v"},
		inputs: []string{"two-docs-one-part"},
		reason: "nodeboot merges every NodeConfig document of a part in order, warning when a later one is node.eks.aws " +
			"too; nodeadm reads only the first document of a part",
		doc: "docs/user-data.md", docLine: "nodeadm reads only the first YAML document of a MIME part",
	},
	{
		id:     "netmanager-decision-records-the-mac",
		paths:  []string{"netmanager-cache:/etc/eks/nodeadm/udev-net-manager/*"},
		when:   func(d nodeview.Difference) bool { return strings.Contains(d.B, `"manager":`+strconv.Quote(d.A)) },
		reason: "the network helper's remembered decision also holds the interface's MAC, so a new ENI that reuses the name is decided afresh; nodeadm's plain form is read too",
		doc:    "packaging/README.md", docLine: "a JSON record that also holds the interface's MAC",
	},
}

// outcomeDifference is a documented difference in whether the two agents
// boot an input at all (hand-written inputs name the one they show).
type outcomeDifference struct {
	id string
	// nodeadmBoots: nodeadm's config phase succeeds and nodeboot refuses,
	// naming the source; else nodeadm refuses and nodeboot boots.
	nodeadmBoots bool
	reason       string
	doc, docLine string
}

// outcomeDifferences is the table of documented outcome differences
// (docs/nodeadm-oracle.md lists it).
var outcomeDifferences = []outcomeDifference{
	{
		id: "kubelet-refuses-what-nodeadm-writes", nodeadmBoots: true,
		reason: "nodeadm writes the value into the kubelet's config or command line as it is, and the kubelet refuses " +
			"it when it starts (checked with the real kubelet 1.34.4: a quoted number or boolean for a typed field, a " +
			"scalar for a list, a word that is no flag), so the node never joins; nodeboot refuses it before writing " +
			"anything, naming the field and line",
		doc: "docs/user-data.md", docLine: "the kubelet refuses when it starts",
	},
	{
		id: "empty-documents-skipped",
		reason: "nodeboot skips empty YAML documents (---, ---) in a part; nodeadm reads only the first document of a " +
			"part, finds it empty and refuses",
		doc: "docs/user-data.md", docLine: "Empty YAML documents are skipped",
	},
	{
		id: "yaml-flow-style",
		reason: "nodeadm's decoder takes any input starting with { as JSON and refuses YAML flow style " +
			"({apiVersion: …}); nodeboot reads it as YAML, of which JSON is a subset",
		doc: "docs/user-data.md", docLine: "YAML flow style",
	},
	{
		id: "whole-payload-decoded-from-every-source",
		reason: "nodeboot undoes base64 and gzip of a whole payload from every source; nodeadm only from IMDS " +
			"(its file source reads the bytes as they are)",
		doc: "docs/user-data.md", docLine: "The whole payload may be base64 and/or gzip",
	},
}

// outcomeDifferenceByID returns the table entry id names.
func outcomeDifferenceByID(t *testing.T, id string) *outcomeDifference {
	for i := range outcomeDifferences {
		if outcomeDifferences[i].id == id {
			return &outcomeDifferences[i]
		}
	}
	t.Fatalf("no outcome difference %q in the table", id)
	return nil
}

// explain returns the table entry that covers d, or nil.
func explain(d nodeview.Difference, caseName string) *deliberate {
	for i := range differences {
		e := &differences[i]
		for _, p := range e.paths {
			if globMatch(p, d.Path) && (e.when == nil || e.when(d)) && (e.inputs == nil || slices.Contains(e.inputs, caseName)) {
				return e
			}
		}
	}
	return nil
}

// globMatch matches a nodeview path against a pattern.
func globMatch(pattern, path string) bool {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch {
		case strings.HasPrefix(pattern[i:], "**"):
			b.WriteString(".*")
			i++
		case pattern[i] == '*':
			b.WriteString(`[^.]*`)
		default:
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String()).MatchString(path)
}

// TestDifferencesAreDocumented checks that every entry of the table names
// a docs line that exists, so users read what the oracle allows.
func TestDifferencesAreDocumented(t *testing.T) {
	type documented struct{ id, reason, doc, docLine string }
	var all []documented
	for _, e := range differences {
		all = append(all, documented{e.id, e.reason, e.doc, e.docLine})
	}
	for _, e := range outcomeDifferences {
		all = append(all, documented{e.id, e.reason, e.doc, e.docLine})
	}
	for _, e := range all {
		data, err := os.ReadFile("../../" + e.doc)
		if err != nil {
			t.Errorf("%s: %v", e.id, err)
			continue
		}
		if !strings.Contains(string(data), e.docLine) {
			t.Errorf("%s: %s has no line with %q", e.id, e.doc, e.docLine)
		}
		if e.reason == "" {
			t.Errorf("%s: no reason", e.id)
		}
	}
}
