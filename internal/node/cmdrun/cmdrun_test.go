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
		{name: "found on the PATH of its environment", cmd: Cmd{Name: "sh", Args: []string{"-c", "echo $PATH"}, Env: []string{"PATH=/nonexistent:/bin:/usr/bin"}}, stdout: "/nonexistent:/bin:/usr/bin\n"},
		{name: "not on the PATH of its environment", cmd: Cmd{Name: "sh", Env: []string{"PATH=/nonexistent"}}, exit: -1, err: ErrNotInstalled},
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

func TestExecStreamsStdout(t *testing.T) {
	var out strings.Builder
	res := Exec{}.Run(context.Background(), Cmd{Name: "sh", Args: []string{"-c", "printf 0123456789; printf e >&2"}, MaxOutput: 4, Stdout: &out})
	if out.String() != "0123456789" || len(res.Stdout) != 0 || string(res.Stderr) != "e" || res.Err != nil {
		t.Errorf("streamed %q, result stdout %q stderr %q err %v", out.String(), res.Stdout, res.Stderr, res.Err)
	}
}

func TestCmdString(t *testing.T) {
	if got := (Cmd{Name: "ctr", Args: []string{"version"}}).String(); !strings.EqualFold(got, "ctr version") {
		t.Errorf("String() = %q", got)
	}
}
