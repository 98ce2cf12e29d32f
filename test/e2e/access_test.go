//go:build e2e

package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodeboot/nodeboot/internal/cluster/access"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// Roles only the access scenario uses.
const (
	// fixRole is unmapped until `nodeboot access fix` maps it.
	fixRole = "nodeboot-e2e-fixme"
	// windowsRole is a Windows node role mapped without eks:kube-proxy-windows.
	windowsRole = "nodeboot-e2e-windows"
	// entryRole gets an access entry from `nodeboot access fix`.
	entryRole = "nodeboot-e2e-entry"
	// linuxASG is an Auto Scaling group whose launch template's instance
	// profile holds the node role.
	linuxASG = "nodeboot-e2e-linux"
)

// accessWorld is the AWS side `nodeboot access` resolves and edits: EKS
// (authentication mode, access entries), and EC2, IAM and Auto Scaling for
// the Auto Scaling group → launch template → instance profile → role path.
type accessWorld struct {
	eks *awstest.EKS
	env []string
}

func newAccessWorld(t *testing.T) *accessWorld {
	t.Helper()
	w := &accessWorld{eks: awstest.NewEKS(t)}
	w.eks.AddCluster(awstest.Cluster{Name: clusterName, AuthenticationMode: awstest.AuthModeConfigMap, IPFamily: "ipv4"})
	ec2 := awstest.NewEC2(t)
	iam := awstest.NewIAM(t)
	asg := awstest.NewAutoScaling(t, ec2, awstest.GroupHooks{})
	userData := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\nContent-Type: application/node.eks.aws\n\n" +
		"apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: " + clusterName + "\n--//--\n"
	ec2.AddLaunchTemplate(awstest.LaunchTemplate{ID: "lt-0e2e0000000000001", Name: linuxASG, ImageID: "ami-0e2e0000000000001", InstanceType: "m5.large",
		IAMInstanceProfileARN: "arn:aws:iam::" + awsAccount + ":instance-profile/eks/" + nodeRole + "-profile",
		UserData:              base64.StdEncoding.EncodeToString([]byte(userData))})
	iam.AddInstanceProfile(awstest.InstanceProfile{Name: nodeRole + "-profile", Path: "/eks/", Account: awsAccount,
		RoleARNs: []string{"arn:aws:iam::" + awsAccount + ":role/eks/" + nodeRole}})
	if err := asg.CreateGroup(awstest.AutoScalingGroup{Name: linuxASG, Zones: []string{zone}, LaunchTemplateID: "lt-0e2e0000000000001", LaunchTemplateVersion: "1"}); err != nil {
		t.Fatal(err)
	}
	w.env = append(awstest.IsolatedEnviron(t),
		"AWS_ENDPOINT_URL_EKS="+w.eks.URL, "AWS_ENDPOINT_URL_EC2="+ec2.URL, "AWS_ENDPOINT_URL_IAM="+iam.URL, "AWS_ENDPOINT_URL_AUTO_SCALING="+asg.URL)
	return w
}

// runAccess runs nodeboot-access and returns its exit code and output.
func (w *accessWorld) run(t *testing.T, bin string, c *cluster, args ...string) (int, string) {
	t.Helper()
	args = append(args, "--kubeconfig", c.adminKubeconfig, "--cluster", clusterName, "--region", region)
	code, stdout, stderr, took, err := runNodeboot(t.Context(), bin, w.env, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("nodeboot-access %s: exit %d in %s\n%s%s", strings.Join(args[:2], " "), code, took.Round(time.Millisecond), stdout, stderr)
	return code, stdout + stderr
}

// checkReport runs `check -o json` and decodes it.
func (w *accessWorld) checkReport(t *testing.T, bin string, c *cluster, selectors ...string) (int, access.Report) {
	t.Helper()
	code, out := w.run(t, bin, c, append([]string{"check", "-o", "json"}, selectors...)...)
	var rep access.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("check -o json is not a report: %v", err)
	}
	return code, rep
}

// accessBeforeLaunch runs `nodeboot access check` and `fix` against the
// real API server and authenticator and the AWS stubs, before any node
// launches: what they say is then checked against what the real
// authenticator does with each role's token.
func accessBeforeLaunch(t *testing.T, env suiteEnv, c *cluster) {
	bin := buildBinary(t, env.repo, filepath.Join(env.workDir, "bin"), "./cmd/nodeboot-access")
	w := newAccessWorld(t)
	t.Run("check", func(t *testing.T) { accessCheck(t, bin, w, c) })
	t.Run("malformed-aws-auth", func(t *testing.T) { accessMalformed(t, bin, w, c) })
	t.Run("fix-aws-auth", func(t *testing.T) { accessFixAWSAuth(t, bin, w, c) })
	t.Run("fix-access-entries-preview", func(t *testing.T) { accessMigrationPreview(t, bin, w, c) })
	t.Run("fix-access-entries", func(t *testing.T) { accessMigrate(t, bin, w, c) })
}

func accessCheck(t *testing.T, bin string, w *accessWorld, c *cluster) {
	code, rep := w.checkReport(t, bin, c, "--group", linuxASG, "--role", roleARN(noGroupsRole), "--role", roleARN(sessionNameRole),
		"--role", roleARN(unmappedRole), "--windows-role", roleARN(windowsRole))
	if code != 1 {
		t.Errorf("check exited %d, want 1 (groups will not join)", code)
	}
	if rep.Cluster.Mode != access.ModeConfigMap || rep.Cluster.ModeNote != "" {
		t.Errorf("cluster %+v, want mode CONFIG_MAP from EKS", rep.Cluster)
	}
	want := map[string]struct {
		join  bool
		codes []string
	}{
		linuxASG:                 {join: true},
		roleARN(noGroupsRole):    {codes: []string{"error group-missing", "warning group-missing"}},
		roleARN(sessionNameRole): {codes: []string{"error username-template"}},
		roleARN(unmappedRole):    {codes: []string{"error unmapped"}},
		roleARN(windowsRole):     {codes: []string{"error group-missing", "error windows-linux-node", "error windows-ipam"}},
	}
	for _, g := range rep.Groups {
		wg, ok := want[g.Name]
		var codes []string
		for _, f := range g.Findings {
			codes = append(codes, string(f.Severity)+" "+f.Code)
		}
		if !ok || g.WillJoin != wg.join || !slices.Equal(codes, wg.codes) {
			t.Errorf("group %s: willJoin %v, findings %q; want %v, %q", g.Name, g.WillJoin, codes, wg.join, wg.codes)
		}
	}
	if g := rep.Groups[0]; g.RoleARN != "arn:aws:iam::"+awsAccount+":role/eks/"+nodeRole || g.MappedARN != roleARN(nodeRole) ||
		g.Username != "system:node:{{EC2PrivateDNSName}}" || g.Via != "aws-auth" {
		t.Errorf("the Auto Scaling group resolved to %+v", g)
	}
	// What the check says, the authenticator does.
	for _, tc := range []struct {
		role, user string
		groups     []string
	}{
		{role: noGroupsRole, user: "system:node:ip-10-0-0-7.us-west-2.compute.internal"},
		{role: sessionNameRole, user: "system:node:i-0e2e0000000000ac1", groups: []string{bootstrapGroup, nodesGroup}},
	} {
		u := mintedUser(t, c, tc.role)
		if u.Username != tc.user || !slices.Equal(slices.DeleteFunc(u.Groups, func(g string) bool { return g == "system:authenticated" }), tc.groups) {
			t.Errorf("%s authenticates as %s in %q; want %s in %q", tc.role, u.Username, u.Groups, tc.user, tc.groups)
		}
	}
	if _, err := mintedUserErr(t.Context(), c, unmappedRole); !isUnauthorized(err) {
		t.Errorf("unmapped role: %v, want 401 Unauthorized", err)
	}
}

// mintedUser authenticates a fresh session of role (instance
// i-0e2e0000000000ac1, private DNS name ip-10-0-0-7…) through the real
// authenticator.
func mintedUser(t *testing.T, c *cluster, role string) (u struct {
	Username string
	Groups   []string
}) {
	t.Helper()
	info, err := mintedUserErr(t.Context(), c, role)
	if err != nil {
		t.Fatalf("%s: %v", role, err)
	}
	u.Username, u.Groups = info.Username, info.Groups
	return u
}

func mintedUserErr(ctx context.Context, c *cluster, role string) (userInfo, error) {
	const instance = "i-0e2e0000000000ac1"
	c.identity.launch(instance, "m5.large", "ip-10-0-0-7.us-west-2.compute.internal", role)
	return whoAmI(ctx, c, c.identity, c.identity.session(instance))
}

func accessMalformed(t *testing.T, bin string, w *accessWorld, c *cluster) {
	ctx := t.Context()
	good := awsAuthRoles()
	// Bad indentation, the classic hand edit.
	broken := strings.Replace(good, "\n  groups:\n    - system:bootstrappers", "\n groups:\n    - system:bootstrappers", 1)
	if err := applyAWSAuth(ctx, c.admin, broken); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { restoreAWSAuth(t, c, good) })
	code, out := w.run(t, bin, c, "check", "--role", roleARN(nodeRole))
	if code != 1 || !strings.Contains(out, "every node mapped here is locked out") {
		t.Errorf("check on a malformed aws-auth: exit %d, want 1 and \"every node mapped here is locked out\"", code)
	}
	// The real authenticator agrees: the node role, mapped in the broken
	// text, is now refused.
	if err := waitUntil(ctx, "the authenticator drops the malformed mapRoles", 30*time.Second, time.Second, []*process{c.authenticator.proc},
		func(ctx context.Context) (bool, string, error) {
			_, err := mintedUserErr(ctx, c, nodeRole)
			return isUnauthorized(err), errString(err), nil
		}); err != nil {
		t.Error(err)
	}
	code, out = w.run(t, bin, c, "fix", "--dry-run", "--role", roleARN(nodeRole))
	if code != 1 || !strings.Contains(out, access.ErrUnparsable.Error()) {
		t.Errorf("fix on a malformed aws-auth: exit %d, want 1 and a refusal", code)
	}
}

// restoreAWSAuth puts the suite's aws-auth back and waits until the
// authenticator serves it again.
func restoreAWSAuth(t *testing.T, c *cluster, mapRoles string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := applyAWSAuth(ctx, c.admin, mapRoles); err != nil {
		t.Error(err)
		return
	}
	if err := waitInCleanup(ctx, "the authenticator maps the node role again", 30*time.Second, time.Second,
		func(ctx context.Context) (bool, string, error) {
			u, err := mintedUserErr(ctx, c, nodeRole)
			return err == nil && strings.HasPrefix(u.Username, "system:node:"), errString(err), nil
		}); err != nil {
		t.Error(err)
	}
}

func accessFixAWSAuth(t *testing.T, bin string, w *accessWorld, c *cluster) {
	ctx := t.Context()
	before := awsAuthRoles()
	t.Cleanup(func() { restoreAWSAuth(t, c, before) })
	code, out := w.run(t, bin, c, "fix", "--dry-run", "--role", roleARN(fixRole))
	wantDiff := "+- rolearn: " + roleARN(fixRole) + "\n+  username: system:node:{{EC2PrivateDNSName}}\n+  groups:\n+    - system:bootstrappers\n+    - system:nodes\n"
	if code != 0 || !strings.Contains(out, wantDiff) || !strings.Contains(out, "--- kube-system/aws-auth data.mapRoles (live)") {
		t.Errorf("fix --dry-run: exit %d; want 0 and the diff\n%s", code, wantDiff)
	}
	if cm := getAWSAuth(t, c); cm.Data["mapRoles"] != before {
		t.Fatalf("--dry-run changed aws-auth")
	}
	if code, _ := w.run(t, bin, c, "fix", "--role", roleARN(fixRole)); code != 0 {
		t.Fatalf("fix exited %d", code)
	}
	cm := getAWSAuth(t, c)
	if !strings.HasPrefix(cm.Data["mapRoles"], before) {
		t.Errorf("fix rewrote entries it did not write:\n%s", cm.Data["mapRoles"])
	}
	if !slices.ContainsFunc(cm.ManagedFields, func(f metav1.ManagedFieldsEntry) bool {
		return f.Manager == access.FieldManager && f.Operation == metav1.ManagedFieldsOperationApply && strings.Contains(f.FieldsV1.GetRawString(), "mapRoles")
	}) {
		t.Errorf("data.mapRoles is not applied by field manager %s: %+v", access.FieldManager, cm.ManagedFields)
	}
	if err := waitUntil(ctx, "the authenticator maps the fixed role as a node", 30*time.Second, time.Second, []*process{c.authenticator.proc},
		func(ctx context.Context) (bool, string, error) {
			u, err := mintedUserErr(ctx, c, fixRole)
			return err == nil && u.Username == "system:node:ip-10-0-0-7.us-west-2.compute.internal" &&
				slices.Contains(u.Groups, nodesGroup) && slices.Contains(u.Groups, bootstrapGroup), errString(err), nil
		}); err != nil {
		t.Error(err)
	}
	if code, _ := w.run(t, bin, c, "check", "--role", roleARN(fixRole)); code != 0 {
		t.Errorf("check after the fix exited %d, want 0", code)
	}
}

// accessMigrationPreview asks for access entries on a CONFIG_MAP cluster:
// the dry run previews the migration and changes nothing.
func accessMigrationPreview(t *testing.T, bin string, w *accessWorld, c *cluster) {
	code, out := w.run(t, bin, c, "fix", "--dry-run", "--via", "access-entries", "--windows-role", roleARN(windowsRole))
	for _, want := range []string{
		"aws eks update-cluster-config --name " + clusterName + " --access-config authenticationMode=API_AND_CONFIG_MAP --region " + region,
		"aws eks create-access-entry --cluster-name " + clusterName + " --principal-arn " + roleARN(nodeRole) + " --type EC2_LINUX --region " + region + "   # from aws-auth",
		"aws eks create-access-entry --cluster-name " + clusterName + " --principal-arn " + roleARN(windowsRole) + " --type EC2_WINDOWS --region " + region,
		"not fixed: " + roleARN(windowsRole) + ": kube-system/amazon-vpc-cni lacks enable-windows-ipam",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("migration preview lacks %q", want)
		}
	}
	if code != 1 {
		t.Errorf("fix exited %d, want 1 (the Windows prerequisites are not fixed)", code)
	}
	if mode := w.eks.AuthenticationMode(clusterName); mode != awstest.AuthModeConfigMap || len(w.eks.AccessEntries(clusterName)) > 0 {
		t.Errorf("--dry-run changed EKS: mode %s, entries %+v", mode, w.eks.AccessEntries(clusterName))
	}
}

func getAWSAuth(t *testing.T, c *cluster) *corev1.ConfigMap {
	t.Helper()
	cm, err := c.admin.CoreV1().ConfigMaps(kubeSystem).Get(t.Context(), "aws-auth", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// userInfo is who the API server says a token is.
type userInfo = authenticationv1.UserInfo

// isUnauthorized reports a 401 from the API server.
func isUnauthorized(err error) bool { return apierrors.IsUnauthorized(err) }

// accessMigrate lets a role in with an access entry: the fix migrates the
// CONFIG_MAP cluster (mode API_AND_CONFIG_MAP, an EC2_LINUX entry for the
// node role already in aws-auth) and creates the role's entry; the harness,
// playing EKS's control plane, hands mode and entries to the authenticator,
// which then maps the role, found in no aws-auth entry, through DynamicFile.
// The join scenarios that follow run on the migrated cluster.
func accessMigrate(t *testing.T, bin string, w *accessWorld, c *cluster) {
	ctx := t.Context()
	if code, _ := w.run(t, bin, c, "fix", "--via", "access-entries", "--role", roleARN(entryRole)); code != 0 {
		t.Fatalf("fix --via access-entries exited %d", code)
	}
	// The role's own entry, and copies of aws-auth's node entries (the
	// Windows role's as aws-auth has it: without its Windows group, so
	// EC2_LINUX).
	entries := w.eks.AccessEntries(clusterName)
	var got []string
	for _, e := range entries {
		got = append(got, e.Type+" "+e.PrincipalARN)
	}
	want := []string{"EC2_LINUX " + roleARN(entryRole), "EC2_LINUX " + roleARN(nodeRole), "EC2_LINUX " + roleARN(windowsRole)}
	if mode := w.eks.AuthenticationMode(clusterName); mode != awstest.AuthModeAPIAndConfigMap || !slices.Equal(got, want) {
		t.Fatalf("EKS after the fix: mode %s, entries %q; want %s, %q", mode, got, awstest.AuthModeAPIAndConfigMap, want)
	}
	if err := c.authenticator.syncEKS(awstest.AuthModeAPIAndConfigMap, entries); err != nil {
		t.Fatal(err)
	}
	if err := waitUntil(ctx, "the authenticator maps the role from its access entry", 30*time.Second, time.Second, []*process{c.authenticator.proc},
		func(ctx context.Context) (bool, string, error) {
			u, err := mintedUserErr(ctx, c, entryRole)
			return err == nil && u.Username == "system:node:ip-10-0-0-7.us-west-2.compute.internal" &&
				slices.Contains(u.Groups, nodesGroup), errString(err), nil
		}); err != nil {
		t.Error(err)
	}
	code, rep := w.checkReport(t, bin, c, "--role", roleARN(entryRole), "--group", linuxASG)
	if code != 0 || rep.Cluster.Mode != access.ModeAPIAndConfigMap || rep.Groups[0].Via != "access entry (EC2_LINUX)" || rep.Groups[1].Via != "access entry (EC2_LINUX)" {
		t.Errorf("check after the migration: exit %d, %+v", code, rep)
	}
}
