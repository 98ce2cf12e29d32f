package app

import (
	"os"
	"path/filepath"

	"bytes"
	"context"
	"github.com/nodeboot/nodeboot/internal/cluster/access"
	"strings"
	"testing"
)

func TestMainUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{name: "no command", args: nil, code: ExitUsage, want: "no command given"},
		{name: "unknown command", args: []string{"grant"}, code: ExitUsage, want: `unknown command "grant"`},
		{name: "cluster required", args: []string{"check", "--role", "arn:aws:iam::111122223333:role/n"}, code: ExitUsage, want: "--cluster is required"},
		{name: "a selector required", args: []string{"check", "--cluster", "prod"}, code: ExitUsage, want: "name the node groups"},
		{name: "bad output", args: []string{"check", "--cluster", "prod", "--role", "x", "-o", "yaml"}, code: ExitUsage, want: "-o must be text or json"},
		{name: "bad via", args: []string{"fix", "--cluster", "prod", "--role", "x", "--via", "magic"}, code: ExitUsage, want: "--via must be"},
		{name: "stray argument", args: []string{"check", "--cluster", "prod", "--role", "x", "extra"}, code: ExitUsage, want: "takes no arguments"},
		{name: "help", args: []string{"help"}, code: ExitOK, want: "nodeboot-access check --cluster NAME"},
		{name: "version", args: []string{"version"}, code: ExitOK, want: "nodeboot-access "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			code := Main(context.Background(), tc.args, Env{Stdout: &out, Stderr: &out})
			if code != tc.code || !strings.Contains(out.String(), tc.want) {
				t.Errorf("exit %d, output %q; want %d and %q", code, out.String(), tc.code, tc.want)
			}
		})
	}
}

func TestNodeGroupFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("apiVersion: nodeboot.io/v1alpha1\nkind: NodeGroup\nmetadata:\n  name: g\nspec:\n  cluster:\n    name: prod\n  instanceType: m5.large\n  maxPods:\n    value: 20\n  nodeRole: arn:aws:iam::111122223333:role/nodes\n"), 0o600)
	g, err := nodeGroupFile(context.Background(), access.Resolver{}, good, false)
	if err != nil || g.RoleARN != "arn:aws:iam::111122223333:role/nodes" || g.MaxPods["m5.large"] != 20 || g.Err != nil {
		t.Errorf("group %+v, %v", g, err)
	}
	typo := filepath.Join(dir, "typo.yaml")
	os.WriteFile(typo, []byte("apiVersion: nodeboot.io/v1alpha1\nkind: NodeGroup\nmetadata:\n  name: g\nspec:\n  nodeRoles: x\n"), 0o600)
	if _, err := nodeGroupFile(context.Background(), access.Resolver{}, typo, false); err == nil || !strings.Contains(err.Error(), "nodeRoles") {
		t.Errorf("a typo: %v", err)
	}
	noRole := filepath.Join(dir, "norole.yaml")
	os.WriteFile(noRole, []byte("apiVersion: nodeboot.io/v1alpha1\nkind: NodeGroup\nmetadata:\n  name: g\nspec:\n  cluster:\n    name: prod\n"), 0o600)
	if g, err := nodeGroupFile(context.Background(), access.Resolver{}, noRole, false); err != nil || g.Err == nil {
		t.Errorf("no role and no launch template: %+v, %v", g, err)
	}
}
