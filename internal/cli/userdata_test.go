package cli

import (
	"errors"
	"testing"
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
