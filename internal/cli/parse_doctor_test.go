package cli

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseDoctorAndBundle(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want Invocation
		err  bool
	}{
		{name: "doctor defaults", args: []string{"doctor"},
			want: Invocation{Command: CmdDoctor, Sources: []string{DefaultSource}, Root: "/", Output: "text", Timeout: time.Minute}},
		{name: "doctor flags", args: []string{"doctor", "-c", "file:///etc/eks/nodeadm.d/", "--root", "/mnt", "-o", "json", "--timeout", "20s"},
			want: Invocation{Command: CmdDoctor, Sources: []string{"file:///etc/eks/nodeadm.d/"}, Root: "/mnt", Output: "json", Timeout: 20 * time.Second}},
		{name: "bundle defaults", args: []string{"bundle"},
			want: Invocation{Command: CmdBundle, Sources: []string{DefaultSource}, Root: "/", Since: 24 * time.Hour, OutputPath: "/var/log/support/nodeboot-logs.tar.gz", Timeout: 10 * time.Minute}},
		{name: "bundle flags", args: []string{"bundle", "--since", "2h", "--out", "/tmp/b.tgz", "--timeout", "30s"},
			want: Invocation{Command: CmdBundle, Sources: []string{DefaultSource}, Root: "/", Since: 2 * time.Hour, OutputPath: "/tmp/b.tgz", Timeout: 30 * time.Second}},
		{name: "bundle zero timeout", args: []string{"bundle", "--timeout", "0s"}, err: true},
		{name: "doctor yaml output", args: []string{"doctor", "-o", "yaml"}, err: true},
		{name: "doctor zero timeout", args: []string{"doctor", "--timeout", "0s"}, err: true},
		{name: "doctor argument", args: []string{"doctor", "now"}, err: true},
		{name: "bundle negative window", args: []string{"bundle", "--since", "-1h"}, err: true},
		{name: "bundle empty out", args: []string{"bundle", "--out", ""}, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv, err := Parse(tc.args)
			if tc.err {
				if !errors.Is(err, ErrUsage) {
					t.Fatalf("err = %v, want ErrUsage", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if inv.Command != tc.want.Command || !slices.Equal(inv.Sources, tc.want.Sources) || inv.Root != tc.want.Root || inv.Output != tc.want.Output ||
				inv.Timeout != tc.want.Timeout || inv.Since != tc.want.Since || inv.OutputPath != tc.want.OutputPath {
				t.Errorf("Parse = %+v, want %+v", inv, tc.want)
			}
		})
	}
}

func TestParseRegistrationTimeout(t *testing.T) {
	for args, want := range map[string]time.Duration{"": 5 * time.Minute, "--registration-timeout=0": 0, "--registration-timeout=90s": 90 * time.Second} {
		argv := []string{"init"}
		if args != "" {
			argv = append(argv, args)
		}
		inv, err := Parse(argv)
		if err != nil || inv.RegistrationTimeout != want {
			t.Errorf("%q: %v, %v; want %s", args, inv.RegistrationTimeout, err, want)
		}
	}
	if _, err := Parse([]string{"init", "--registration-timeout=-1s"}); !errors.Is(err, ErrUsage) {
		t.Errorf("negative timeout: %v", err)
	}
	// Without the kubelet in scope, only an explicit timeout waits.
	for args, want := range map[string]time.Duration{"-d containerd": 0, "--daemon= --registration-timeout=3s": 3 * time.Second} {
		inv, err := Parse(append([]string{"init"}, strings.Fields(args)...))
		if err != nil || inv.RegistrationTimeout != want {
			t.Errorf("%q: %v, %v; want %s", args, inv.RegistrationTimeout, err, want)
		}
	}
}
