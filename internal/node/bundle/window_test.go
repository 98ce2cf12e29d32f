package bundle

import (
	"strings"
	"testing"
	"time"
)

func TestWindow(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	since := now.Add(-time.Hour)
	tests := []struct {
		name, log, want string
		dropped         int
	}{
		{name: "klog", log: "I1122 10:30:00.000000 1 a.go:1] old\nE1122 11:30:00.000000 1 a.go:1] new\n  continued\n",
			want: "E1122 11:30:00.000000 1 a.go:1] new\n  continued\n", dropped: 1},
		{name: "klog across the new year", log: "I1231 23:59:00.000000 1 a.go:1] last year\n",
			want: "", dropped: 1},
		{name: "logfmt (containerd)", log: "time=\"2026-11-22T10:00:00.123456789Z\" level=info msg=old\ntime=\"2026-11-22T11:59:00Z\" level=error msg=new\n",
			want: "time=\"2026-11-22T11:59:00Z\" level=error msg=new\n", dropped: 1},
		{name: "RFC 3339 and cloud-init", log: "2026-11-22T09:00:00+00:00 old\n2026-11-22 11:15:00,120 - util.py[DEBUG]: new\n",
			want: "2026-11-22 11:15:00,120 - util.py[DEBUG]: new\n", dropped: 1},
		{name: "syslog", log: "Nov 22 10:00:00 host kubelet[1]: old\nNov 22 11:01:00 host kubelet[1]: new\n",
			want: "Nov 22 11:01:00 host kubelet[1]: new\n", dropped: 1},
		{name: "lines before any timestamp are kept", log: "Flag --foo has been deprecated\nI1122 11:10:00.000000 1 a.go:1] new\n",
			want: "Flag --foo has been deprecated\nI1122 11:10:00.000000 1 a.go:1] new\n"},
		{name: "no final newline", log: "I1122 11:10:00.000000 1 a.go:1] new", want: "I1122 11:10:00.000000 1 a.go:1] new"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, dropped := Window([]byte(tc.log), since, now)
			if string(got) != tc.want || dropped != tc.dropped {
				t.Errorf("Window = %q (%d dropped), want %q (%d)", got, dropped, tc.want, tc.dropped)
			}
		})
	}
	if got, _ := Window([]byte("x\n"), time.Time{}, now); string(got) != "x\n" {
		t.Errorf("no window changed the log: %q", got)
	}
}

func FuzzWindow(f *testing.F) {
	f.Add("I1122 10:30:00.000000 1 a.go:1] x\ntime=\"2026-11-22T10:00:00Z\"\nNov 22 10:00:00 h\n2026-11-22 11:15:00,120 -\n")
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, log string) {
		got, dropped := Window([]byte(log), now.Add(-time.Hour), now)
		if len(got) > len(log) || dropped < 0 || dropped > strings.Count(log, "\n")+1 {
			t.Fatalf("kept %d of %d bytes, dropped %d lines", len(got), len(log), dropped)
		}
	})
}
