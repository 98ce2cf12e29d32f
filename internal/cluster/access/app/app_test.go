package app

import (
	"bytes"
	"context"
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
