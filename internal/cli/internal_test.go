package cli

import (
	"errors"
	"testing"
)

func TestParseInternal(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		want    Invocation
		wantErr bool
	}{
		{name: "boot hook", args: []string{"internal", "boot-hook"}, want: Invocation{Command: CmdBootHook, Root: "/"}},
		{name: "udev add, nodeadm's short flags", args: []string{"internal", "udev-net-manager", "-a", "add", "-i", "ens6", "--root", "/r"},
			want: Invocation{Command: CmdUdevNetManager, Action: "add", Interface: "ens6", Root: "/r"}},
		{name: "udev remove", args: []string{"internal", "udev-net-manager", "--action", "remove", "--interface", "ens6"},
			want: Invocation{Command: CmdUdevNetManager, Action: "remove", Interface: "ens6", Root: "/"}},
		{name: "no subcommand", args: []string{"internal"}, wantErr: true},
		{name: "unknown subcommand", args: []string{"internal", "cni-reconcile"}, wantErr: true},
		{name: "unknown action", args: []string{"internal", "udev-net-manager", "-a", "change", "-i", "ens6"}, wantErr: true},
		{name: "no interface", args: []string{"internal", "udev-net-manager", "-a", "add"}, wantErr: true},
		{name: "stray argument", args: []string{"internal", "boot-hook", "now"}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv, err := Parse(tc.args)
			if tc.wantErr {
				if !errors.Is(err, ErrUsage) {
					t.Fatalf("err = %v, want a usage error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if inv.Command != tc.want.Command || inv.Action != tc.want.Action || inv.Interface != tc.want.Interface || inv.Root != tc.want.Root {
				t.Fatalf("got %+v, want %+v", inv, tc.want)
			}
		})
	}
}
