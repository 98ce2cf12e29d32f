package bundle

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/nodeboot/nodeboot/internal/node/cmdrun"
	"github.com/nodeboot/nodeboot/internal/node/redact"
)

// splitJournal writes a line as journald stores it when it is longer
// than lineMax (journald-stream.c: entries of exactly lineMax bytes, then
// the rest) and as `journalctl -o short-iso-precise` prints the entries.
func splitJournal(line string, lineMax int, prefix string) string {
	var b strings.Builder
	for len(line) > lineMax {
		b.WriteString(prefix + line[:lineMax] + "\n")
		line = line[lineMax:]
	}
	b.WriteString(prefix + line + "\n")
	return b.String()
}

func TestSplitEntryJoiner(t *testing.T) {
	const p1 = "2026-11-28T21:00:00.100000+0000 ip-10-0-0-1 kubelet[900]: "
	const p2 = "2026-11-28T21:00:00.100001+0000 ip-10-0-0-1 kubelet[900]: "
	const other = "2026-11-28T21:00:00.100001+0000 ip-10-0-0-1 kubelet[901]: "
	long := strings.Repeat("a", 200)
	for _, tc := range []struct{ name, in, want string }{
		{"a line split in three", splitJournal(long, 79, p1), p1 + long + "\n"},
		{"pieces stamped apart", p1 + long[:79] + "\n" + p2 + long[79:] + "\n", p1 + long + "\n"},
		{"another process goes on", p1 + long[:79] + "\n" + other + "b\n", p1 + long[:79] + "\n" + other + "b\n"},
		{"a full entry ends the output", p1 + long[:79] + "\n", p1 + long[:79] + "\n"},
		{"an entry shorter than LineMax", p1 + long[:78] + "\n" + p2 + "b\n", p1 + long[:78] + "\n" + p2 + "b\n"},
		{"not a journal", long[:79] + "\n" + long[:79] + "\n", long[:79] + "\n" + long[:79] + "\n"},
		{"a boot marker after a full entry", p1 + long[:79] + "\n-- Boot 1 --\n", p1 + long[:79] + "\n-- Boot 1 --\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := io.ReadAll(newSplitEntryJoiner(strings.NewReader(tc.in), 79))
			if err != nil || string(got) != tc.want {
				t.Errorf("got %q (%v), want %q", got, err, tc.want)
			}
		})
	}
}

func TestLineMaxOf(t *testing.T) {
	for conf, want := range map[string]int{
		"":                                   48 << 10,
		"[Journal]\n#LineMax=48K\n":          48 << 10,
		"[Journal]\nLineMax=1M\n":            1 << 20,
		"[Journal]\nLineMax=4096\nStorage=x": 4096,
		"[Journal]\nLineMax=10\n":            79,
	} {
		if got := lineMaxOf([]byte(conf)); got != want {
			t.Errorf("%q: %d, want %d", conf, got, want)
		}
	}
}

// splitRunner answers journalctl with a kubelet line longer than journald's
// LineMax, split by journald right inside a bearer token.
type splitRunner struct{ out string }

func (s splitRunner) Run(_ context.Context, c cmdrun.Cmd) cmdrun.Result {
	return cmdrun.Result{Stdout: []byte(s.out)}
}

// TestJournalSplitEntriesRedactedWhole collects a journal in which journald
// split a long line inside a token (its key in one entry, the token in the
// next): the bundle joins the entries back, so no piece of it survives.
func TestJournalSplitEntriesRedactedWhole(t *testing.T) {
	const token = "7ihGyiRUIQfHOJMaidDn87XG3_q_xbMtEPO6UkzY"
	prefix := "2026-11-28T21:00:00.100000+0000 ip-10-0-0-1 kubelet[900]: "
	start, key := "I1128 21:00:00.100000 900 round_trippers.go:1] \"Request\" body=", " Authorization: Bearer "
	head := start + strings.Repeat("x", defaultLineMax-10-len(start)-len(key)) + key // the token cut after 10 bytes
	split := splitJournal(head+token+" end", defaultLineMax, prefix)
	if !strings.Contains(split, token[:10]+"\n"+prefix+token[10:]) {
		t.Fatal("the journal was not split inside the token")
	}
	dir, raw := tempSpools(t)
	b := Bundle{Commands: splitRunner{split}, Root: "/"}.withDefaults()
	r := &runner{b: b, root: dir, raw: raw, since: time.Now().Add(-time.Hour), now: time.Now()}
	var body []byte
	journal("kubelet.service", "kubelet.log").run(context.Background(), r, func(e entry) { body, _ = io.ReadAll(e.body) })
	out, _ := redact.Bytes(body)
	for _, piece := range []string{token[:10], token[10:22], token[len(token)-12:]} {
		if strings.Contains(string(out), piece) {
			t.Errorf("%q of the token survived:\n%.300s", piece, out[len(out)-300:])
		}
	}
	if strings.Count(string(out), "\n") != 1 {
		t.Errorf("the split entries were not joined: %d lines", strings.Count(string(out), "\n"))
	}
}

// FuzzSplitEntryJoiner checks that joining never adds bytes, and changes
// nothing where no entry is LineMax long.
func FuzzSplitEntryJoiner(f *testing.F) {
	const p1 = "2026-11-28T21:00:00.100000+0000 ip-10-0-0-1 kubelet[900]: "
	f.Add([]byte(splitJournal(strings.Repeat("a", 200), 79, p1)))
	f.Add([]byte(p1 + strings.Repeat("b", 79) + "\n-- Boot 1 --\n"))
	f.Add([]byte("2026-11-28T21:00:00 x: \n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := io.ReadAll(newSplitEntryJoiner(strings.NewReader(string(in)), 79))
		if err != nil || len(out) > len(in) {
			t.Fatalf("%q -> %q (%v)", in, out, err)
		}
		full := false
		for _, l := range strings.SplitAfter(string(in), "\n") {
			if _, msg := journalPrefix([]byte(strings.TrimSuffix(l, "\n"))); len(msg) == 79 {
				full = true
			}
		}
		if !full && string(out) != string(in) {
			t.Fatalf("%q changed to %q", in, out)
		}
	})
}
