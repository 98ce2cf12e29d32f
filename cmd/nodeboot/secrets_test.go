package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/cli"
	"github.com/nodeboot/nodeboot/internal/testing/awstest"
)

// secretCases put a secret (a bootstrap token, a password, a proxy URL
// with credentials, registry credentials, an HTTP header) where the input
// is wrong in some way, in every format: reading it must report a problem
// without printing the secret, which would end up on the console (and
// with it in ec2:GetConsoleOutput).
var secretCases = []struct {
	name, userData, secret string
}{
	// NodeConfig: the token is a YAML number, a value of the wrong kind
	// at or above the secret, or a key.
	{"token all digits", nodeboot("identity:\n    mode: BootstrapToken\n    bootstrapToken:\n      token: 123456.1234567890123456\n      unsafeSkipCAVerification: true"), "123456.1234567890123456"},
	{"token integer", nodeboot("identity:\n    mode: BootstrapToken\n    bootstrapToken:\n      token: 1234567890123456\n"), "1234567890123456"},
	{"token where a mapping is due", nodeboot("identity:\n    mode: BootstrapToken\n    bootstrapToken: token k7x2mp.q9w8e7r6t5y4u3i2"), "q9w8e7r6t5y4u3i2"},
	{"identity a string", nodeboot("identity: bootstrapToken k7x2mp.q9w8e7r6t5y4u3i2"), "q9w8e7r6t5y4u3i2"},
	{"token as a key", nodeboot("identity:\n    mode: BootstrapToken\n    bootstrapToken: {token k7x2mp.q9w8e7r6t5y4u3i2}"), "q9w8e7r6t5y4u3i2"},
	{"token in a list", nodeboot("identity:\n    mode: BootstrapToken\n    bootstrapToken:\n      token: [k7x2mp.q9w8e7r6t5y4u3i2]"), "q9w8e7r6t5y4u3i2"},
	{"spec a string", "apiVersion: nodeboot.io/v1alpha1\nkind: NodeConfig\nspec: token k7x2mp.q9w8e7r6t5y4u3i2\n", "q9w8e7r6t5y4u3i2"},
	{"token with a typo key", nodeboot("identity:\n    mode: BootstrapToken\n    bootstrapToken:\n      tokn: k7x2mp.q9w8e7r6t5y4u3i2"), "q9w8e7r6t5y4u3i2"},
	{"exec env value a number", nodeboot("identity:\n    exec:\n      env:\n        AWS_SECRET_ACCESS_KEY: 98765432109876543210"), "98765432109876543210"},
	{"exec env a string", nodeboot("identity:\n    exec:\n      env: AWS_SECRET_ACCESS_KEY=s3cr3tP4ss"), "s3cr3tP4ss"},
	{"proxy environment a string", nodeboot("instance:\n    environment:\n      default: HTTPS_PROXY=http://user:s3cr3tP4ss@proxy:3128"), "s3cr3tP4ss"},
	{"proxy environment a list", nodeboot("instance:\n    environment:\n      default:\n        HTTPS_PROXY: [http://user:s3cr3tP4ss@proxy:3128]"), "s3cr3tP4ss"},
	{"proxy environment a number", nodeboot("instance:\n    environment:\n      default:\n        PROXY_PASSWORD: 31415926535"), "31415926535"},
	{"containerd config with a password", nodeboot("containerd:\n    config: |\n      [plugins.\"io.containerd.grpc.v1.cri\".registry.configs.\"r\".auth]\n      password = \"s3cr3tP4ss"), "s3cr3tP4ss"},
	{"containerd config not a string", nodeboot("containerd:\n    config: {password: s3cr3tP4ss}"), "s3cr3tP4ss"},
	{"static pod URL header", nodeboot("kubelet:\n    config:\n      staticPodURLHeader:\n        Authorization: Bearer s3cr3tP4ss"), "s3cr3tP4ss"},
	// Bottlerocket settings.
	{"bottlerocket token integer", "[settings.kubernetes]\ncluster-name = \"c\"\nauthentication-mode = \"tls\"\nbootstrap-token = 1234567890123456\n", "1234567890123456"},
	{"bottlerocket token malformed", "[settings.kubernetes]\ncluster-name = \"c\"\nauthentication-mode = \"tls\"\nbootstrap-token = \"K7X2MP.q9w8e7r6t5y4u3i2\"\n", "q9w8e7r6t5y4u3i2"},
	{"bottlerocket token a table", "[settings.kubernetes]\ncluster-name = \"c\"\nauthentication-mode = \"tls\"\nbootstrap-token = {token = \"k7x2mp.q9w8e7r6t5y4u3i2\"}\n", "q9w8e7r6t5y4u3i2"},
	{"bottlerocket token unterminated", "[settings.kubernetes]\ncluster-name = \"c\"\nauthentication-mode = \"tls\"\nbootstrap-token = \"k7x2mp.q9w8e7r6t5y4u3i2\n", "q9w8e7r6t5y4u3i2"},
	{"bottlerocket proxy a number", "[settings.kubernetes]\ncluster-name = \"c\"\n[settings.network]\nhttps-proxy = 31415926535\n", "31415926535"},
	{"bottlerocket proxy in a list", "[settings.kubernetes]\ncluster-name = \"c\"\n[settings.network]\nhttps-proxy = [\"http://u:s3cr3tP4ss@p:3128\"]\n", "s3cr3tP4ss"},
	{"bottlerocket registry credentials", "[settings.kubernetes]\ncluster-name = \"c\"\n[[settings.container-registry.credentials]]\nregistry = \"r\"\npassword = \"s3cr3tP4ss\"\n", "s3cr3tP4ss"},
	{"bottlerocket aws credentials", "[settings.kubernetes]\ncluster-name = \"c\"\n[settings.aws]\ncredentials = \"czNjcjN0UDRzcw==\"\n", "czNjcjN0UDRzcw=="},
	{"bottlerocket server key", "[settings.kubernetes]\ncluster-name = \"c\"\nserver-key = \"czNjcjN0UDRzcw==\"\n", "czNjcjN0UDRzcw=="},
	// bootstrap.sh.
	{"docker config json joined", "#!/bin/bash\n/etc/eks/bootstrap.sh c --docker-config-json='{\"auths\":{\"r\":{\"auth\":\"czNjcjN0UDRzcw==\"}}}'\n", "czNjcjN0UDRzcw=="},
	{"docker config json from a substitution", "#!/bin/bash\n/etc/eks/bootstrap.sh c --docker-config-json \"$(echo czNjcjN0UDRzcw==)\"\n", "czNjcjN0UDRzcw=="},
}

// nodeboot wraps spec lines in a nodeboot.io/v1alpha1 document for the
// cluster my-cluster.
func nodeboot(spec string) string {
	return "apiVersion: nodeboot.io/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: my-cluster\n  " + spec + "\n"
}

// TestSecretsNeverPrinted runs config check (text and JSON) and init, when
// the input is invalid, on every secret case and checks that the problem
// is reported without the secret. init, whose output is the console, runs
// as the built binary; config check runs cli.Main in this process, which
// is the same code without the cost of starting a process 54 more times.
func TestSecretsNeverPrinted(t *testing.T) {
	awstest.IsolateEnv(t)
	t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE", "IPv4")
	for _, tc := range secretCases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			fakeMachine(t, root)
			if err := os.WriteFile(filepath.Join(root, "user-data"), []byte(tc.userData), 0o600); err != nil {
				t.Fatal(err)
			}
			source := []string{"--root", root, "-c", "file:///user-data"}
			check := runMain(t, append([]string{"config", "check"}, source...)...)
			if strings.Contains(check.stdout+check.stderr, tc.secret) {
				t.Errorf("config check prints the secret:\n%s%s", check.stdout, check.stderr)
			}
			if check.stdout == "" || !strings.Contains(check.stdout, "file:///user-data line") {
				t.Errorf("config check reports no problem with a line:\n%s%s", check.stdout, check.stderr)
			}
			res := runMain(t, append([]string{"config", "check", "-o", "json"}, source...)...)
			if strings.Contains(res.stdout+res.stderr, tc.secret) {
				t.Errorf("config check -o json prints the secret:\n%s%s", res.stdout, res.stderr)
			}
			if check.code == 0 {
				return
			}
			// init stops before any lookup.
			res = run(t, nil, append([]string{"init", "--skip", "run"}, source...)...)
			if strings.Contains(res.stdout+res.stderr, tc.secret) {
				t.Errorf("init prints the secret:\n%s%s", res.stdout, res.stderr)
			}
		})
	}
}

// runMain runs one nodeboot command in this process, with this process's
// environment.
func runMain(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Main(t.Context(), args, cli.Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: os.Getenv, Setenv: func(string, string) error { return nil }, Environ: os.Environ,
	})
	return result{code, out.String(), errb.String()}
}
