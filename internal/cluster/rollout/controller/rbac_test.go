package controller

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// deployDir holds the controller's manifests.
const deployDir = "../../../../deploy/rollout"

func readRules(t *testing.T, file string) []rbacv1.PolicyRule {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(deployDir, file))
	if err != nil {
		t.Fatal(err)
	}
	var role rbacv1.ClusterRole // a Role has the same shape
	if err := yaml.UnmarshalStrict(data, &role); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return role.Rules
}

func allows(rules []rbacv1.PolicyRule, c call) bool {
	for _, r := range rules {
		if slices.Contains(r.APIGroups, c.group) && slices.Contains(r.Resources, c.resource) && slices.Contains(r.Verbs, c.verb) {
			return true
		}
	}
	return false
}

// checkRBAC checks the ClusterRole against the calls the controller made:
// each must be granted (a read from the informer cache needs list and
// watch), and the ClusterRole must grant nothing else but recording Events.
func checkRBAC(t *testing.T, calls map[call]int) {
	t.Helper()
	rules := readRules(t, "clusterrole.yaml")
	need := map[call]bool{}
	for c := range calls {
		need[c] = true
		if c.verb == "get" || c.verb == "list" {
			need[call{"list", c.group, c.resource}] = true
			need[call{"watch", c.group, c.resource}] = true
		}
	}
	for _, g := range []string{"", "events.k8s.io"} {
		for _, v := range []string{"create", "patch"} {
			need[call{v, g, "events"}] = true
		}
	}
	for c := range need {
		if !allows(rules, c) {
			t.Errorf("the controller calls %s %q %s, which deploy/rollout/clusterrole.yaml does not grant", c.verb, c.group, c.resource)
		}
	}
	for _, r := range rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					if c := (call{v, g, res}); !need[c] {
						t.Errorf("deploy/rollout/clusterrole.yaml grants %s %q %s, which the controller never calls", v, g, res)
					}
				}
			}
		}
	}
	for _, r := range readRules(t, "role.yaml") {
		if !slices.Equal(r.APIGroups, []string{"coordination.k8s.io"}) || !slices.Equal(r.Resources, []string{"leases"}) {
			t.Errorf("role.yaml rule %+v: only leader-election Leases belong there", r)
		}
	}
}
