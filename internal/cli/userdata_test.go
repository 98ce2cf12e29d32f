package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/nodeboot/nodeboot/internal/author/generate"
	"github.com/nodeboot/nodeboot/internal/config/diag"
)

func TestParseUserData(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		check   func(t *testing.T, inv Invocation)
		wantErr bool
	}{
		{name: "generate defaults to eks", args: []string{"userdata", "generate", "-f", "ng.yaml", "--family", "al2023"}, check: func(t *testing.T, inv Invocation) {
			if inv.Command != CmdUserDataGenerate || inv.UserData.NodeGroup != "ng.yaml" || inv.UserData.Producer != "eks" || inv.UserData.Family != "al2023" {
				t.Fatalf("%+v", inv)
			}
		}},
		{name: "generate with user data", args: []string{"userdata", "generate", "-f", "ng.yaml", "--family", "al2", "--as", "karpenter", "--user-data", "a", "--user-data", "b"}, check: func(t *testing.T, inv Invocation) {
			if len(inv.UserData.UserData) != 2 || inv.UserData.Producer != "karpenter" {
				t.Fatalf("%+v", inv)
			}
		}},
		{name: "merge", args: []string{"userdata", "merge", "-f", "ng.yaml", "--family", "bottlerocket", "--as", "karpenter", "--strict", "-o", "json", "--user-data-out", "out", "u1", "u2"}, check: func(t *testing.T, inv Invocation) {
			if inv.Command != CmdUserDataMerge || !inv.Strict || inv.Output != "json" || len(inv.Args) != 2 || inv.UserData.UserDataOut != "out" {
				t.Fatalf("%+v", inv)
			}
		}},
		{name: "config check target", args: []string{"config", "check", "--target", "karpenter", "--family", "al2023", "--node-group", "ng.yaml"}, check: func(t *testing.T, inv Invocation) {
			if inv.UserData.Target != "karpenter" || inv.UserData.Family != "al2023" || inv.UserData.NodeGroup != "ng.yaml" {
				t.Fatalf("%+v", inv)
			}
		}},
		{name: "no subcommand", args: []string{"userdata"}, wantErr: true},
		{name: "unknown subcommand", args: []string{"userdata", "render"}, wantErr: true},
		{name: "generate without -f", args: []string{"userdata", "generate", "--family", "al2"}, wantErr: true},
		{name: "unknown family", args: []string{"userdata", "generate", "-f", "x", "--family", "ubuntu"}, wantErr: true},
		{name: "unknown producer", args: []string{"userdata", "generate", "-f", "x", "--family", "al2", "--as", "capi"}, wantErr: true},
		{name: "generate takes no arguments", args: []string{"userdata", "generate", "-f", "x", "--family", "al2", "extra"}, wantErr: true},
		{name: "merge needs a part", args: []string{"userdata", "merge", "-f", "x", "--family", "al2"}, wantErr: true},
		{name: "merge as eksctl", args: []string{"userdata", "merge", "-f", "x", "--family", "al2", "--as", "eksctl", "u"}, wantErr: true},
		{name: "merge bad output", args: []string{"userdata", "merge", "-f", "x", "--family", "al2", "-o", "yaml", "u"}, wantErr: true},
		{name: "target without family", args: []string{"config", "check", "--target", "karpenter"}, wantErr: true},
		{name: "family without target", args: []string{"config", "check", "--family", "al2"}, wantErr: true},
		{name: "unknown target", args: []string{"config", "check", "--target", "eks", "--family", "al2"}, wantErr: true},
		{name: "dump has no target", args: []string{"config", "dump", "--target", "karpenter"}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv, err := Parse(tc.args)
			if tc.wantErr {
				if !errors.Is(err, ErrUsage) {
					t.Fatalf("want ErrUsage, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, inv)
		})
	}
}

// TestCheckOutputRefusesWhatConfigCheckRefuses: the check generate and
// merge run on their own output fails on user data a node would not read
// (a NodeConfig past the closing boundary, the 2026 bug), prints why, and
// passes well-formed user data.
func TestCheckOutputRefusesWhatConfigCheckRefuses(t *testing.T) {
	const nodeConfig = "apiVersion: nodeboot.io/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: prod\n"
	in := generate.Input{Family: generate.FamilyAL2023, Producer: generate.ProducerEKS}
	tests := []struct {
		name    string
		data    string
		wantErr bool
	}{
		{name: "well-formed", data: "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\nContent-Type: application/node.eks.aws\n\n" + nodeConfig + "--//--\n"},
		{name: "the NodeConfig past the closing boundary", wantErr: true,
			data: "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\nContent-Type: text/x-shellscript\n\necho a\n--//--\n--//\nContent-Type: application/node.eks.aws\n\n" + nodeConfig + "--//--\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr strings.Builder
			err := checkOutput(in, []byte(tc.data), &stderr)
			if (err != nil) != tc.wantErr || (err != nil && !errors.Is(err, diag.ErrInvalidConfig)) {
				t.Fatalf("checkOutput() = %v, want an error: %v", err, tc.wantErr)
			}
			if tc.wantErr && !strings.Contains(stderr.String(), "the user data this command wrote fails its own check: ") {
				t.Errorf("stderr %q", stderr.String())
			}
		})
	}
}
