package cli

import (
	"errors"
	"slices"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		check   func(t *testing.T, inv Invocation)
		wantErr bool
	}{
		{name: "init defaults", args: []string{"init"}, check: func(t *testing.T, inv Invocation) {
			if !slices.Equal(inv.Sources, []string{DefaultSource}) || inv.Root != "/" || inv.Daemons != nil {
				t.Fatalf("%+v", inv)
			}
		}},
		{name: "init nodeadm style", args: []string{"init", "-c", "file:///a.yaml", "--config-source", "imds://user-data", "--skip", "run", "-s", "config", "--config-cache", "/run/c.json", "--root", "/tmp/r"}, check: func(t *testing.T, inv Invocation) {
			if !slices.Equal(inv.Sources, []string{"file:///a.yaml", "imds://user-data"}) || !inv.Skips(PhaseRun) || !inv.Skips(PhaseConfig) || inv.Cache != "/run/c.json" || inv.Root != "/tmp/r" {
				t.Fatalf("%+v", inv)
			}
		}},
		{name: "init strict", args: []string{"init", "--strict"}, check: func(t *testing.T, inv Invocation) {
			if !inv.Strict {
				t.Fatalf("%+v", inv)
			}
		}},
		{name: "init not strict by default", args: []string{"init"}, check: func(t *testing.T, inv Invocation) {
			if inv.Strict {
				t.Fatalf("%+v", inv)
			}
		}},
		{name: "daemon empty means none", args: []string{"init", "--daemon="}, check: func(t *testing.T, inv Invocation) {
			if inv.WantsDaemon("kubelet") || inv.WantsDaemon("containerd") {
				t.Fatalf("%+v", inv)
			}
		}},
		{name: "daemon kubelet", args: []string{"init", "-d", "kubelet"}, check: func(t *testing.T, inv Invocation) {
			if !inv.WantsDaemon("kubelet") || inv.WantsDaemon("containerd") {
				t.Fatalf("%+v", inv)
			}
		}},
		{name: "config check json", args: []string{"config", "check", "-o", "json", "-c", "file:///x"}, check: func(t *testing.T, inv Invocation) {
			if inv.Command != CmdConfigCheck || inv.Output != "json" {
				t.Fatalf("%+v", inv)
			}
		}},
		{name: "config dump default yaml", args: []string{"config", "dump"}, check: func(t *testing.T, inv Invocation) {
			if inv.Command != CmdConfigDump || inv.Output != "yaml" {
				t.Fatalf("%+v", inv)
			}
		}},
		{name: "version", args: []string{"version"}, check: func(t *testing.T, inv Invocation) {
			if inv.Command != CmdVersion {
				t.Fatalf("%+v", inv)
			}
		}},
		{name: "init default timeout", args: []string{"init"}, check: func(t *testing.T, inv Invocation) {
			if inv.Timeout != DefaultTimeout {
				t.Fatalf("Timeout = %s, want %s", inv.Timeout, DefaultTimeout)
			}
		}},
		{name: "init timeout", args: []string{"init", "--timeout", "90s"}, check: func(t *testing.T, inv Invocation) {
			if inv.Timeout != 90*time.Second {
				t.Fatalf("Timeout = %s", inv.Timeout)
			}
		}},
		{name: "bootstrap-sh timeout", args: []string{"bootstrap-sh", "--timeout", "2m", "--", "c"}, check: func(t *testing.T, inv Invocation) {
			if inv.Timeout != 2*time.Minute || len(inv.Args) != 1 {
				t.Fatalf("%+v", inv)
			}
		}},
		{name: "zero timeout", args: []string{"init", "--timeout", "0s"}, wantErr: true},
		{name: "negative timeout", args: []string{"config", "check", "--timeout=-1s"}, wantErr: true},
		{name: "timeout without unit", args: []string{"init", "--timeout", "300"}, wantErr: true},
		{name: "no command", args: nil, wantErr: true},
		{name: "version with an argument", args: []string{"version", "extra"}, wantErr: true},
		{name: "unknown command", args: []string{"boot"}, wantErr: true},
		{name: "bad skip", args: []string{"init", "--skip", "everything"}, wantErr: true},
		{name: "bad daemon", args: []string{"init", "-d", "docker"}, wantErr: true},
		{name: "bad scheme", args: []string{"init", "-c", "s3://bucket/x"}, wantErr: true},
		{name: "unknown flag", args: []string{"init", "--bogus"}, wantErr: true},
		{name: "stray argument", args: []string{"init", "extra"}, wantErr: true},
		{name: "config without sub", args: []string{"config"}, wantErr: true},
		{name: "check yaml output refused", args: []string{"config", "check", "-o", "yaml"}, wantErr: true},
		{name: "empty root", args: []string{"init", "--root", ""}, wantErr: true},
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
