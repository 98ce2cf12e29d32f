package cmdrun

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestExec(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name           string
		cmd            Cmd
		stdout, stderr string
		exit           int
		err            error
		truncated      bool
	}{
		{name: "output kept apart", cmd: Cmd{Name: "sh", Args: []string{"-c", "echo out; echo err >&2; exit 3"}}, stdout: "out\n", stderr: "err\n", exit: 3},
		{name: "stdin and environment", cmd: Cmd{Name: "sh", Args: []string{"-c", "cat; echo \" $X\""}, Env: []string{"X=y"}, Stdin: []byte("in")}, stdout: "in y\n"},
		{name: "not installed", cmd: Cmd{Name: "nodeboot-no-such-command"}, exit: -1, err: ErrNotInstalled},
		{name: "bounded", cmd: Cmd{Name: "sh", Args: []string{"-c", "sleep 30 & wait"}, Timeout: 100 * time.Millisecond}, exit: -1, err: ErrTimeout},
		{name: "output capped", cmd: Cmd{Name: "sh", Args: []string{"-c", "printf 0123456789"}, MaxOutput: 4}, stdout: "0123", truncated: true},
		{name: "tail kept", cmd: Cmd{Name: "sh", Args: []string{"-c", "printf 0123456789"}, MaxOutput: 4, KeepTail: true}, stdout: "6789", truncated: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := Exec{}.Run(ctx, tc.cmd)
			if string(res.Stdout) != tc.stdout || string(res.Stderr) != tc.stderr || res.ExitCode != tc.exit || res.Truncated != tc.truncated {
				t.Errorf("got stdout %q stderr %q exit %d truncated %v", res.Stdout, res.Stderr, res.ExitCode, res.Truncated)
			}
			if !errors.Is(res.Err, tc.err) || (tc.err == nil) != (res.Err == nil) {
				t.Errorf("err = %v, want %v", res.Err, tc.err)
			}
		})
	}
}

func TestCmdString(t *testing.T) {
	if got := (Cmd{Name: "ctr", Args: []string{"version"}}).String(); !strings.EqualFold(got, "ctr version") {
		t.Errorf("String() = %q", got)
	}
}
