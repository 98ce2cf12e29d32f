//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Names kubeadm and the bootstrap-token machinery use.
const (
	kubePublic      = "kube-public"
	kubeSystem      = "kube-system"
	clusterInfoName = "cluster-info"
	jwsKeyPrefix    = "jws-kubeconfig-"
	bootstrapGroup  = "system:bootstrappers"
	extraBootGroup  = "system:bootstrappers:nodeboot-e2e"
	nodesGroup      = "system:nodes"
)

// clusterObjects are the API objects a cluster operator (kubeadm, or the
// nodeboot deployment) creates before nodes join.
type clusterObjects struct {
	server         string
	caPEM          []byte
	bootstrapToken string
	approverUser   string
}

// applyClusterObjects creates the bootstrap token, the RBAC that lets
// bootstrap tokens create and auto-approve kubelet client CSRs, the
// kube-public/cluster-info discovery ConfigMap (KCM's bootstrapsigner signs
// it) and nodeboot-approver's RBAC.
func applyClusterObjects(ctx context.Context, cs kubernetes.Interface, o clusterObjects) error {
	kubeconfig, err := clusterInfoKubeconfig(o.server, o.caPEM)
	if err != nil {
		return err
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "bootstrap-token-" + tokenID(o.bootstrapToken), Namespace: kubeSystem},
		Type:       corev1.SecretType("bootstrap.kubernetes.io/token"),
		StringData: map[string]string{
			"token-id":                       tokenID(o.bootstrapToken),
			"token-secret":                   tokenSecret(o.bootstrapToken),
			"expiration":                     time.Now().Add(2 * time.Hour).UTC().Format(time.RFC3339),
			"usage-bootstrap-authentication": "true",
			"usage-bootstrap-signing":        "true",
			"auth-extra-groups":              extraBootGroup,
			"description":                    "nodeboot e2e join token",
		},
	}
	if _, err := cs.CoreV1().Secrets(kubeSystem).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create bootstrap token secret: %w", err)
	}
	clusterInfo := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: clusterInfoName, Namespace: kubePublic},
		Data:       map[string]string{"kubeconfig": string(kubeconfig)},
	}
	if _, err := cs.CoreV1().ConfigMaps(kubePublic).Create(ctx, clusterInfo, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create cluster-info: %w", err)
	}
	if err := applyRBAC(ctx, cs, o.approverUser); err != nil {
		return err
	}
	return nil
}

func applyRBAC(ctx context.Context, cs kubernetes.Interface, approver string) error {
	rbac := cs.RbacV1()
	group := func(name string) rbacv1.Subject {
		return rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: name}
	}
	user := func(name string) rbacv1.Subject {
		return rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: name}
	}
	clusterBinding := func(name, role string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
		return &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   subjects,
		}
	}
	approverRole := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "nodeboot-approver"},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"certificatesigningrequests"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"certificatesigningrequests/approval"}, Verbs: []string{"update"}},
			{APIGroups: []string{"certificates.k8s.io"}, Resources: []string{"signers"}, ResourceNames: []string{"kubernetes.io/kubelet-serving"}, Verbs: []string{"approve"}},
			{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch", "update"}},
		},
	}
	if _, err := rbac.ClusterRoles().Create(ctx, approverRole, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create ClusterRole %s: %w", approverRole.Name, err)
	}
	bindings := []*rbacv1.ClusterRoleBinding{
		// What kubeadm's bootstrap-token phase creates.
		clusterBinding("kubeadm:kubelet-bootstrap", "system:node-bootstrapper", group(bootstrapGroup)),
		clusterBinding("kubeadm:node-autoapprove-bootstrap", "system:certificates.k8s.io:certificatesigningrequests:nodeclient", group(bootstrapGroup)),
		clusterBinding("kubeadm:node-autoapprove-certificate-rotation", "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient", group(nodesGroup)),
		clusterBinding("nodeboot-approver", "nodeboot-approver", user(approver)),
	}
	for _, b := range bindings {
		if _, err := rbac.ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create ClusterRoleBinding %s: %w", b.Name, err)
		}
	}
	// Anonymous read of kube-public/cluster-info, as kubeadm grants.
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "kubeadm:bootstrap-signer-clusterinfo", Namespace: kubePublic},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"},
			ResourceNames: []string{clusterInfoName}, Verbs: []string{"get"}}},
	}
	if _, err := rbac.Roles(kubePublic).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create Role %s: %w", role.Name, err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name, Namespace: kubePublic},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{user("system:anonymous")},
	}
	if _, err := rbac.RoleBindings(kubePublic).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create RoleBinding %s: %w", binding.Name, err)
	}
	return nil
}
