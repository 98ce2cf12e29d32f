//go:build oracle

package oracle

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/nodeboot/nodeboot/internal/testing/nodeview"
)

// pair is the two nodes of one case: nodeadm's and nodeboot's, seeing the
// same cloud, given the same steps.
type pair struct {
	name     string
	nodeadm  *node
	nodeboot *node
	src      string // the case directory in the module cache
	stats    *stats
}

// newPair makes the two nodes of case c, each with its own cloud.
func newPair(t *testing.T, name, src string, c nodeadmCase, st *stats) *pair {
	var proxy *logProxy // one for both nodes: their user data is the same
	if c.proxy {
		proxy = startLogProxy(t)
	}
	cloudOf := func() *cloud {
		cl := startCloud(t, c)
		if proxy != nil {
			cl.withProxy(t, proxy)
		}
		return &cl
	}
	return newPairIn(t, name, src, cloudOf(), cloudOf(), st)
}

// newPairIn makes two nodes in the given clouds.
func newPairIn(t *testing.T, name, src string, a, b *cloud, st *stats) *pair {
	return &pair{
		name: name, src: src, stats: st,
		nodeadm:  newNode(t, nodeadmAgent(t), a, src),
		nodeboot: newNode(t, nodebootAgent(t), b, src),
	}
}

// both applies an environment change to both nodes.
func (p *pair) both(t *testing.T, change func(n *node) error) {
	t.Helper()
	for _, n := range []*node{p.nodeadm, p.nodeboot} {
		if err := change(n); err != nil {
			t.Fatalf("%s node: %v", n.agent.name, err)
		}
	}
}

// outcome is what the two agents did in one step.
type outcome struct {
	nodeadm, nodeboot result
}

// run runs one command line of the case on both nodes at once.
func (p *pair) run(t *testing.T, env []string, args ...string) outcome {
	t.Helper()
	p.nodeadm.bus.Reset()
	p.nodeboot.bus.Reset()
	if startsKubelet(args) {
		p.stats.explained("registration-wait")
	}
	var o outcome
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); o.nodeadm = p.nodeadm.run(t.Context(), env, args...) }()
	go func() { defer wg.Done(); o.nodeboot = p.nodeboot.run(t.Context(), env, args...) }()
	wg.Wait()
	p.stats.runs(2)
	return o
}

// boots runs a step run.sh expects to succeed: nodeadm must succeed (else
// the harness does not reproduce nodeadm's environment), nodeboot must
// succeed too, and the nodes must not differ beyond the deliberate
// differences.
func (p *pair) boots(t *testing.T, env []string, args ...string) outcome {
	t.Helper()
	o := p.run(t, env, args...)
	step := strings.Join(args, " ")
	if o.nodeadm.code != 0 {
		t.Fatalf("%s: nodeadm failed where its run.sh expects success (harness problem):\n%s", step, o.nodeadm)
	}
	if o.nodeboot.code != 0 {
		t.Errorf("%s: nodeadm boots this, nodeboot does not:\n%s", step, o.nodeboot)
		return o
	}
	p.compare(t, step)
	return o
}

// refuses runs a step run.sh expects to fail: both must fail, nodeboot
// saying why.
func (p *pair) refuses(t *testing.T, env []string, args ...string) outcome {
	t.Helper()
	o := p.run(t, env, args...)
	step := strings.Join(args, " ")
	if o.nodeadm.code == 0 {
		t.Fatalf("%s: nodeadm succeeded where its run.sh expects failure (harness problem):\n%s", step, o.nodeadm)
	}
	if o.nodeboot.code == 0 {
		t.Errorf("%s: nodeadm refuses this, nodeboot boots it:\n%s", step, o.nodeboot)
	} else if strings.TrimSpace(o.nodeboot.stderr+o.nodeboot.stdout) == "" {
		t.Errorf("%s: nodeboot refused without an error message:\n%s", step, o.nodeboot)
	}
	p.stats.refusals++
	return o
}

// compare diffs the two nodes' views and the systemd calls of the last
// step; differences not in the table fail the test.
func (p *pair) compare(t *testing.T, step string) {
	t.Helper()
	a, b := p.nodeadm.view(t), p.nodeboot.view(t)
	a["systemd.calls"] = callsOf(p.nodeadm)
	b["systemd.calls"] = callsOf(p.nodeboot)
	p.stats.compared++
	for _, d := range nodeview.Diff(a, b) {
		if e := explain(d, p.name); e != nil {
			p.stats.explained(e.id)
			continue
		}
		t.Errorf("%s: %s (nodeadm ≠ nodeboot) is not a deliberate difference", step, d)
	}
}

// callsOf is the node's systemd calls as a view value; Reload is left out
// (nodeadm reloads by running systemctl, which reaches the bus only when
// it believes systemd booted the machine).
func callsOf(n *node) string {
	var calls []string
	for _, c := range n.bus.Calls() {
		if c.Method != "Reload" {
			calls = append(calls, c.String())
		}
	}
	b, _ := json.Marshal(calls)
	return string(b)
}

// nodeadmFile is one of run.sh's assertions, checked on nodeadm's node: it
// proves the harness reproduces the environment nodeadm's e2e runs in.
type nodeadmFile struct {
	kind     string // json, bytes, contains, not-contains, absent, spec
	nodePath string
	want     string // a case file name, or the pattern
}

func (p *pair) expectNodeadm(t *testing.T, checks ...nodeadmFile) {
	t.Helper()
	for _, c := range checks {
		if err := c.check(p); err != nil {
			t.Errorf("nodeadm's own expectation (its run.sh) does not hold on its node, so the harness differs from its e2e: %v", err)
		}
	}
}

func (c nodeadmFile) check(p *pair) error {
	got, err := os.ReadFile(p.nodeadm.root.Path(c.nodePath))
	if c.kind == "absent" {
		if err == nil {
			return fmt.Errorf("%s exists", c.nodePath)
		}
		return nil
	}
	if err != nil {
		return err
	}
	switch c.kind {
	case "contains", "not-contains":
		found := regexp.MustCompile(c.want).Match(got)
		if found != (c.kind == "contains") {
			return fmt.Errorf("%s %s %q:\n%s", c.nodePath, c.kind, c.want, got)
		}
		return nil
	}
	want, err := os.ReadFile(p.caseFile(c.want))
	if err != nil {
		return err
	}
	switch c.kind {
	case "bytes":
		if string(got) != string(want) {
			return fmt.Errorf("%s differs from %s:\n%s\nwant:\n%s", c.nodePath, c.want, got, want)
		}
	case "json", "spec":
		if c.kind == "spec" {
			var doc map[string]json.RawMessage
			if err := json.Unmarshal(got, &doc); err != nil {
				return err
			}
			got = doc["spec"]
		}
		if nodeview.Canonical(got) != nodeview.Canonical(want) {
			return fmt.Errorf("%s (%s) differs from %s:\n%s\nwant:\n%s", c.nodePath, c.kind, c.want, nodeview.Canonical(got), nodeview.Canonical(want))
		}
	}
	return nil
}

// caseFile is a file of the case in the module cache.
func (p *pair) caseFile(name string) string { return p.src + "/" + name }

// stats are counts over the run, printed at the end.
type stats struct {
	mu                  sync.Mutex
	agentRuns, compared int
	refusals            int
	byDifference        map[string]int
	skipped             map[string]int
}

// refusedByBoth counts an input both agents refused.
func (s *stats) refusedByBoth() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refusals++
}

// notCompared counts a step the harness cannot compare, by reason.
func (s *stats) notCompared(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.skipped == nil {
		s.skipped = map[string]int{}
	}
	s.skipped[reason]++
}

func (s *stats) runs(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.agentRuns += n
}

func (s *stats) explained(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byDifference == nil {
		s.byDifference = map[string]int{}
	}
	s.byDifference[id]++
}

func (s *stats) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, id := range nodeview.SortedKeys(s.byDifference) {
		ids = append(ids, fmt.Sprintf("%s×%d", id, s.byDifference[id]))
	}
	var skipped []string
	for _, r := range nodeview.SortedKeys(s.skipped) {
		skipped = append(skipped, fmt.Sprintf("%s×%d", r, s.skipped[r]))
	}
	return fmt.Sprintf("%d agent runs, %d node comparisons, %d refusals by both; deliberate differences seen: %s; steps not compared: %s",
		s.agentRuns, s.compared, s.refusals, strings.Join(ids, ", "), strings.Join(skipped, ", "))
}

// compareCacheSpec compares the .spec of both agents' config caches, where
// nodeadm's tooling (its e2e, `jq .spec`) reads it.
func (p *pair) compareCacheSpec(t *testing.T) {
	t.Helper()
	const cache = "/run/eks/nodeadm/config.json"
	specs := make([]nodeview.View, 2)
	for i, n := range []*node{p.nodeadm, p.nodeboot} {
		data, err := os.ReadFile(n.root.Path(cache))
		if err != nil {
			t.Errorf("%s: config cache: %v", n.agent.name, err)
			return
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Errorf("%s: config cache: %v", n.agent.name, err)
			return
		}
		specs[i] = nodeview.View{}
		nodeview.Flatten(specs[i], "cache.spec", doc["spec"])
	}
	for _, d := range nodeview.Diff(specs[0], specs[1]) {
		if e := explain(d, p.name); e != nil {
			p.stats.explained(e.id)
			continue
		}
		t.Errorf("config cache: %s (nodeadm ≠ nodeboot) is not a deliberate difference", d)
	}
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

func jsonMarshal(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
