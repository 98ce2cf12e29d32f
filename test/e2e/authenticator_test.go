//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/nodeboot/nodeboot/internal/config/awsauth"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// authenticatorUser is the authenticator's own Kubernetes identity (it
// reads kube-system/aws-auth).
const authenticatorUser = "aws-iam-authenticator"

// authenticator is EKS's authenticator, sigs.k8s.io/aws-iam-authenticator
// built unmodified by scripts/build-authenticator.sh, serving the API
// server's token webhook with its EKSConfigMap backend (aws-auth) and its
// DynamicFile backend (access entries), switched by its backend-mode file
// as the cluster's authentication mode says.
type authenticator struct {
	bin, dir string
	// config is its configuration file; webhookKubeconfig is what the API
	// server's --authentication-token-webhook-config-file names.
	config, webhookKubeconfig, kubeconfig string
	// accessEntries and backendMode are the files EKS's control plane
	// writes for it; syncEKS plays that part.
	accessEntries, backendMode string
	proc                       *process
}

// authenticatorBin is where build-authenticator.sh puts the binary.
func authenticatorBin(env suiteEnv) string { return env.k8s("aws-iam-authenticator") }

// prepareAuthenticator writes the authenticator's configuration and runs
// its `init`, which makes its serving certificate and the webhook
// kubeconfig the API server starts with.
func prepareAuthenticator(t *testing.T, env suiteEnv, dir string) *authenticator {
	t.Helper()
	a := &authenticator{bin: authenticatorBin(env), dir: dir, config: filepath.Join(dir, "config.yaml"),
		webhookKubeconfig: filepath.Join(dir, "webhook.kubeconfig"), kubeconfig: filepath.Join(dir, "authenticator.kubeconfig"),
		accessEntries: filepath.Join(dir, "access-entries.json"), backendMode: filepath.Join(dir, "backend-mode.json")}
	requireFile(t, a.bin, "test/e2e/scripts/build-authenticator.sh")
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`clusterID: %s
server:
  port: %d
  address: 127.0.0.1
  hostname: 127.0.0.1
  stateDir: %s
  generateKubeconfig: %s
  kubeconfigPregenerated: true
  kubeconfig: %s
  backendMode:
    - DynamicFile
    - EKSConfigMap
  dynamicfilepath: %s
  dynamicBackendModePath: %s
`, clusterName, port, filepath.Join(dir, "state"), a.webhookKubeconfig, a.kubeconfig, a.accessEntries, a.backendMode)
	if err := os.MkdirAll(filepath.Join(dir, "state"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(a.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := a.syncEKS(awstest.AuthModeConfigMap, nil); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), a.bin, "init", "--config", a.config,
		"--feature-gates=ConfiguredInitDirectories=true").CombinedOutput()
	if err != nil {
		t.Fatalf("aws-iam-authenticator init: %v\n%s", err, out)
	}
	return a
}

// start runs the authenticator server: its own Kubernetes identity with
// read access to ConfigMaps in kube-system, and an environment whose
// HTTPS calls (STS for every token, EC2 for {{EC2PrivateDNSName}}) reach
// the identity plane's stubs. It returns once a probe role's token is
// authenticated through the whole path.
func (a *authenticator) start(t *testing.T, c *cluster, id *awsIdentity, kubeconfig []byte) {
	t.Helper()
	ctx := t.Context()
	if err := os.WriteFile(a.kubeconfig, kubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := grantAWSAuthRead(ctx, c.admin); err != nil {
		t.Fatal(err)
	}
	env := append(id.hosts.Env(),
		"AWS_REGION="+region,
		// The control plane's own credentials, for ec2:DescribeInstances.
		"AWS_ACCESS_KEY_ID=AKIDNODEBOOTE2ECP", "AWS_SECRET_ACCESS_KEY=nodeboot-e2e-control-plane",
		// No instance metadata on the control plane: the region comes from
		// AWS_REGION (and the STS host list from the partition).
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_CONFIG_FILE="+filepath.Join(a.dir, "no-aws-config"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(a.dir, "no-aws-credentials"))
	a.proc = c.procs.start(t, procSpec{name: "aws-iam-authenticator", argv: []string{a.bin, "server", "--config", a.config}, env: env})
	probe := awstest.AssumedRole(awsAccount, probeRole, "nodeboot-e2e-probe")
	id.sts.AddPrincipal(probe)
	start := time.Now()
	err := waitUntil(ctx, "the authenticator maps a probe role's token", time.Minute, time.Second, []*process{a.proc, c.apiserver},
		func(ctx context.Context) (bool, string, error) {
			u, err := whoAmI(ctx, c, id, probe)
			if err != nil {
				return false, err.Error(), nil
			}
			return u.Username == probeUser, "authenticated as " + u.Username, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	c.timings["authenticator"] = time.Since(start)
}

// whoAmI authenticates with a fresh token of p and returns who the API
// server says it is.
func whoAmI(ctx context.Context, c *cluster, id *awsIdentity, p awstest.Principal) (authenticationv1.UserInfo, error) {
	tok, err := id.token(ctx, p)
	if err != nil {
		return authenticationv1.UserInfo{}, err
	}
	client, err := tokenClient(c, tok)
	if err != nil {
		return authenticationv1.UserInfo{}, err
	}
	r, err := client.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return authenticationv1.UserInfo{}, err
	}
	return r.Status.UserInfo, nil
}

// grantAWSAuthRead lets the authenticator watch ConfigMaps in kube-system,
// as EKS's deployment of it does.
func grantAWSAuthRead(ctx context.Context, admin kubernetes.Interface) error {
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: authenticatorUser, Namespace: kubeSystem},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}},
	}
	if _, err := admin.RbacV1().Roles(kubeSystem).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create Role %s: %w", role.Name, err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: authenticatorUser, Namespace: kubeSystem},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: authenticatorUser}},
	}
	if _, err := admin.RbacV1().RoleBindings(kubeSystem).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create RoleBinding %s: %w", binding.Name, err)
	}
	return nil
}

// applyAWSAuth writes kube-system/aws-auth with mapRoles, as an operator
// (or eksctl, or Terraform) does.
func applyAWSAuth(ctx context.Context, admin kubernetes.Interface, mapRoles string) error {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: awsauth.ConfigMapName, Namespace: awsauth.ConfigMapNamespace},
		Data:       map[string]string{awsauth.KeyMapRoles: mapRoles},
	}
	cms := admin.CoreV1().ConfigMaps(awsauth.ConfigMapNamespace)
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err == nil {
		return nil
	} else if !isNotFound(err) {
		return fmt.Errorf("update aws-auth: %w", err)
	}
	if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create aws-auth: %w", err)
	}
	return nil
}

// authenticatorSaid reports whether the authenticator's log has a line
// holding every part (for what only its log shows).
func (a *authenticator) said(parts ...string) bool {
	data, err := os.ReadFile(a.proc.logPath)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return true
		}
	}
	return false
}

// backendModes is the authenticator's backend chain for each authentication
// mode: access entries (DynamicFile) first, as EKS gives them precedence.
var backendModes = map[string]string{
	awstest.AuthModeConfigMap:       "EKSConfigMap",
	awstest.AuthModeAPIAndConfigMap: "DynamicFile EKSConfigMap",
	awstest.AuthModeAPI:             "DynamicFile",
}

// syncEKS plays EKS's control plane: it renders the cluster's access
// entries into the authenticator's DynamicFile (node entries get the
// username and groups EKS gives them) and its authentication mode into the
// backend-mode file. Each file is replaced atomically; the authenticator
// picks the change up from its file watch.
func (a *authenticator) syncEKS(mode string, entries []awstest.AccessEntry) error {
	type mapping struct {
		ARN      string   `json:"rolearn,omitempty"`
		UserARN  string   `json:"userarn,omitempty"`
		Username string   `json:"username"`
		Groups   []string `json:"groups"`
	}
	now := strconv.FormatInt(time.Now().Unix(), 10)
	file := struct {
		LastUpdatedDateTime, Version string
		Roles                        []mapping `json:"mapRoles"`
		Users                        []mapping `json:"mapUsers"`
		Accounts                     []string  `json:"mapAccounts"`
	}{LastUpdatedDateTime: now, Version: now, Roles: []mapping{}, Users: []mapping{}, Accounts: []string{}}
	for _, e := range entries {
		m := mapping{Username: e.Username, Groups: e.KubernetesGroups}
		switch e.Type {
		case awstest.AccessEntryEC2Linux:
			m.Groups = []string{bootstrapGroup, nodesGroup}
		case awstest.AccessEntryEC2Windows:
			m.Groups = []string{bootstrapGroup, nodesGroup, "eks:kube-proxy-windows"}
		}
		if strings.Contains(e.PrincipalARN, ":role/") {
			m.ARN = e.PrincipalARN
			file.Roles = append(file.Roles, m)
		} else {
			m.UserARN = e.PrincipalARN
			file.Users = append(file.Users, m)
		}
	}
	if err := writeJSONAtomic(a.accessEntries, file); err != nil {
		return err
	}
	return writeJSONAtomic(a.backendMode, map[string]string{"LastUpdatedDateTime": now, "Version": now, "backendMode": backendModes[mode]})
}

func writeJSONAtomic(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
