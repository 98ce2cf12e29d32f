package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/node/cmdrun"
)

// TestCredentialPluginGetsTheKubeletsEnvironment runs a real plugin (a
// script on the PATH the kubelet's unit sets) with the doctor's own
// environment holding AWS keys, as an operator's shell does: the plugin
// sees the kubelet's environment (its unit's variables, the exec info),
// not one variable of the shell, and finds itself on the kubelet's PATH.
func TestCredentialPluginGetsTheKubeletsEnvironment(t *testing.T) {
	n := newFakeNode(t)
	bin := t.TempDir()
	seen := filepath.Join(t.TempDir(), "plugin-env")
	script := "#!/bin/sh\nenv > " + seen + "\nprintf '%s' '" + `{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"` + testToken + `"}}` + "'\n"
	if err := os.WriteFile(filepath.Join(bin, "aws"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, n.root, "/etc/systemd/system/kubelet.service.d/10-env.conf",
		"[Service]\nEnvironment=\"PATH="+bin+":/usr/bin:/bin\" \"AWS_REGION=us-west-2\"\n")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAOPERATORSSHELL00")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "operators-own-secret-key")
	t.Setenv("AWS_PROFILE", "alice")
	n.doctor.Commands = cmdrun.Exec{}
	rep := n.doctor.Run(context.Background())
	for _, id := range []string{CheckCredential, CheckIdentity} {
		if c, _ := rep.Check(id); c.Verdict != OK {
			t.Errorf("%s: %s: %s", id, c.Verdict, c.Summary)
		}
	}
	env, err := os.ReadFile(seen)
	if err != nil {
		t.Fatalf("the plugin did not run from the kubelet's PATH: %v", err)
	}
	for _, leaked := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE"} {
		if strings.Contains(string(env), leaked) {
			t.Errorf("the plugin got the shell's %s:\n%s", leaked, env)
		}
	}
	for _, want := range []string{"AWS_REGION=us-west-2", "PATH=" + bin + ":", "KUBERNETES_EXEC_INFO="} {
		if !strings.Contains(string(env), want) {
			t.Errorf("the plugin's environment lacks %q:\n%s", want, env)
		}
	}
}
