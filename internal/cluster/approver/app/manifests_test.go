package app

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/nodeboot/nodeboot/internal/cluster/managerkit"
)

// deployDir holds the manifests shipped for the approver.
const deployDir = "../../../../deploy/approver"

// manifests are the deploy/approver objects, decoded by kind.
type manifests struct {
	serviceAccount     corev1.ServiceAccount
	clusterRole        rbacv1.ClusterRole
	clusterRoleBinding rbacv1.ClusterRoleBinding
	role               rbacv1.Role
	roleBinding        rbacv1.RoleBinding
	deployment         appsv1.Deployment
}

func loadManifests(t *testing.T) manifests {
	t.Helper()
	var kust struct {
		Namespace string   `json:"namespace"`
		Resources []string `json:"resources"`
	}
	readYAML(t, "kustomization.yaml", &kust)
	if kust.Namespace != managerkit.DefaultLeaderElectionNamespace {
		t.Errorf("kustomization namespace = %q, want %q", kust.Namespace, managerkit.DefaultLeaderElectionNamespace)
	}
	var m manifests
	targets := map[string]any{
		"ServiceAccount":     &m.serviceAccount,
		"ClusterRole":        &m.clusterRole,
		"ClusterRoleBinding": &m.clusterRoleBinding,
		"Role":               &m.role,
		"RoleBinding":        &m.roleBinding,
		"Deployment":         &m.deployment,
	}
	found := map[string]bool{}
	for _, file := range kust.Resources {
		var meta struct {
			Kind string `json:"kind"`
		}
		readYAML(t, file, &meta)
		if target, ok := targets[meta.Kind]; ok {
			readYAML(t, file, target)
			found[meta.Kind] = true
		}
	}
	for kind := range targets {
		if !found[kind] {
			t.Fatalf("kustomization lists no %s", kind)
		}
	}
	return m
}

// readYAML decodes a manifest; Kubernetes objects strictly, so that a
// misspelled field fails the test instead of being dropped.
func readYAML(t *testing.T, name string, into any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(deployDir, name))
	if err != nil {
		t.Fatal(err)
	}
	unmarshal := yaml.Unmarshal
	if _, ok := into.(runtime.Object); ok {
		unmarshal = yaml.UnmarshalStrict
	}
	if err := unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// allows reports whether rules grant verb on group/resource (and name,
// when not empty).
func allows(rules []rbacv1.PolicyRule, group, resource, verb, name string) bool {
	for _, r := range rules {
		if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) &&
			(len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, name)) {
			return true
		}
	}
	return false
}

func TestClusterRoleGrantsWhatTheControllerUses(t *testing.T) {
	m := loadManifests(t)
	type grant struct{ group, resource, verb, name string }
	need := []grant{
		{"certificates.k8s.io", "certificatesigningrequests", "get", ""},
		{"certificates.k8s.io", "certificatesigningrequests", "list", ""},
		{"certificates.k8s.io", "certificatesigningrequests", "watch", ""},
		{"certificates.k8s.io", "certificatesigningrequests/approval", "update", ""},
		{"certificates.k8s.io", "signers", "approve", "kubernetes.io/kubelet-serving"},
		{"", "nodes", "get", ""},
		{"", "nodes", "list", ""},
		{"", "nodes", "watch", ""},
		{"", "events", "create", ""},
		{"", "events", "patch", ""},
	}
	for _, g := range need {
		if !allows(m.clusterRole.Rules, g.group, g.resource, g.verb, g.name) {
			t.Errorf("ClusterRole does not grant %s on %s/%s %s", g.verb, g.group, g.resource, g.name)
		}
	}
	deny := []grant{
		{"certificates.k8s.io", "signers", "approve", "kubernetes.io/kube-apiserver-client"},
		{"certificates.k8s.io", "signers", "approve", "kubernetes.io/kube-apiserver-client-kubelet"},
		{"certificates.k8s.io", "certificatesigningrequests", "delete", ""},
		{"certificates.k8s.io", "certificatesigningrequests/status", "update", ""},
		{"", "nodes", "update", ""},
		{"", "secrets", "get", ""},
	}
	for _, g := range deny {
		if allows(m.clusterRole.Rules, g.group, g.resource, g.verb, g.name) {
			t.Errorf("ClusterRole grants %s on %s/%s %s, which the approver must not have", g.verb, g.group, g.resource, g.name)
		}
	}
	for _, r := range m.clusterRole.Rules {
		if slices.Contains(r.Verbs, "*") || slices.Contains(r.Resources, "*") || slices.Contains(r.APIGroups, "*") {
			t.Errorf("ClusterRole rule %+v uses a wildcard", r)
		}
	}
}

func TestLeaderElectionRoleAndBindings(t *testing.T) {
	m := loadManifests(t)
	for _, verb := range []string{"get", "create", "update"} {
		if !allows(m.role.Rules, "coordination.k8s.io", "leases", verb, "") {
			t.Errorf("Role does not grant %s on leases", verb)
		}
	}
	sa := rbacv1.Subject{Kind: "ServiceAccount", Name: m.serviceAccount.Name, Namespace: m.serviceAccount.Namespace}
	if !slices.Contains(m.clusterRoleBinding.Subjects, sa) || m.clusterRoleBinding.RoleRef.Name != m.clusterRole.Name {
		t.Errorf("ClusterRoleBinding %+v does not bind %s to %+v", m.clusterRoleBinding, m.clusterRole.Name, sa)
	}
	if !slices.Contains(m.roleBinding.Subjects, sa) || m.roleBinding.RoleRef.Name != m.role.Name || m.roleBinding.RoleRef.Kind != "Role" {
		t.Errorf("RoleBinding %+v does not bind Role %s to %+v", m.roleBinding, m.role.Name, sa)
	}
	if m.role.Namespace != m.serviceAccount.Namespace {
		t.Errorf("Role namespace %q differs from the ServiceAccount's %q", m.role.Namespace, m.serviceAccount.Namespace)
	}
}

func TestDeploymentRunsTheApproverSafely(t *testing.T) {
	m := loadManifests(t)
	d := m.deployment
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("replicas = %v, want 2", d.Spec.Replicas)
	}
	pod := d.Spec.Template.Spec
	if pod.ServiceAccountName != m.serviceAccount.Name {
		t.Errorf("serviceAccountName = %q, want %q", pod.ServiceAccountName, m.serviceAccount.Name)
	}
	if pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
		t.Errorf("pod securityContext.runAsNonRoot is not true")
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	sc := c.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Errorf("container securityContext %+v: want readOnlyRootFilesystem and no privilege escalation", sc)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
		t.Errorf("container resources.requests = %v, want cpu and memory", c.Resources.Requests)
	}
	if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("livenessProbe = %+v, want GET /healthz", c.LivenessProbe)
	}
	if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("readinessProbe = %+v, want GET /readyz", c.ReadinessProbe)
	}

	// The args must parse, with $(POD_NAMESPACE) expanded as the kubelet does.
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = strings.ReplaceAll(a, "$(POD_NAMESPACE)", m.serviceAccount.Namespace)
	}
	opts, err := ParseFlags(args)
	if err != nil {
		t.Fatalf("container args %q do not parse: %v", c.Args, err)
	}
	if mo := opts.Manager; !mo.LeaderElect || mo.LeaderElectionNamespace != m.role.Namespace {
		t.Errorf("leader election %v in %q, want on in the Role's namespace %q", mo.LeaderElect, mo.LeaderElectionNamespace, m.role.Namespace)
	}
	if opts.EC2Inventory == EC2InventoryOff {
		t.Errorf("the Deployment turns the EC2 inventory check off (--ec2-inventory=%s)", opts.EC2Inventory)
	}
	if opts.ClusterName == "" {
		t.Errorf("the Deployment names no cluster (--cluster-name): every CSR would be denied InventoryUnavailable")
	}
	if port := probePort(t, c, opts.Manager.HealthProbeBindAddress); c.LivenessProbe.HTTPGet.Port.String() != port {
		t.Errorf("probes target port %s, but --health-probe-bind-address is %q", c.LivenessProbe.HTTPGet.Port.String(), opts.Manager.HealthProbeBindAddress)
	}
}

// probePort returns the name of the container port the address listens on.
func probePort(t *testing.T, c corev1.Container, addr string) string {
	t.Helper()
	_, port, ok := strings.Cut(addr, ":")
	if !ok {
		t.Fatalf("bind address %q has no port", addr)
	}
	for _, p := range c.Ports {
		if p.Name != "" && port == strconv.Itoa(int(p.ContainerPort)) {
			return p.Name
		}
	}
	t.Fatalf("no named container port for %q", addr)
	return ""
}

// TestIAMPolicyGrantsOnlyTheInventoryLookup checks iam-policy.json, the
// policy the README tells operators to attach: the EC2 read the inventory
// check makes and the EKS read that finds the cluster's VPC, nothing more.
func TestIAMPolicyGrantsOnlyTheInventoryLookup(t *testing.T) {
	var policy struct {
		Version   string
		Statement []struct {
			Effect   string
			Action   any
			Resource any
		}
	}
	readYAML(t, "iam-policy.json", &policy) // JSON is YAML
	if policy.Version != "2012-10-17" {
		t.Errorf("Version = %q, want 2012-10-17", policy.Version)
	}
	var actions []string
	for _, st := range policy.Statement {
		if st.Effect != "Allow" {
			t.Errorf("statement effect %q, want Allow", st.Effect)
		}
		switch a := st.Action.(type) {
		case string:
			actions = append(actions, a)
		case []any:
			for _, v := range a {
				actions = append(actions, fmt.Sprint(v))
			}
		default:
			t.Errorf("statement action %v is neither a string nor a list", st.Action)
		}
		// DescribeInstances has no resource-level permissions;
		// DescribeCluster names the cluster, which the policy cannot know.
		if st.Resource != "*" {
			t.Errorf("statement resource %v, want \"*\"", st.Resource)
		}
	}
	if !slices.Equal(actions, []string{"ec2:DescribeInstances", "eks:DescribeCluster"}) {
		t.Errorf("actions = %q, want exactly [ec2:DescribeInstances eks:DescribeCluster]", actions)
	}
}
