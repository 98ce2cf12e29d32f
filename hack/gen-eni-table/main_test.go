package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Paths relative to this package's directory.
const (
	sharedJSONL   = "../../../shared/data/instance-network-limits.jsonl"
	generatedFile = "../../internal/config/eni/zz_generated_table.go"
)

// TestGeneratedTableUpToDate regenerates internal/config/eni's table from the shared
// data (when the checkout has it) and compares it with the committed file.
func TestGeneratedTableUpToDate(t *testing.T) {
	src, err := os.ReadFile(sharedJSONL)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s not present", sharedJSONL)
	}
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(generatedFile)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^// Source date: (\S+)$`).FindSubmatch(committed)
	if m == nil {
		t.Fatalf("%s has no source date header", generatedFile)
	}
	got, err := generate(src, filepath.Base(sharedJSONL), string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, committed) {
		t.Fatalf("%s is stale; run: go generate ./internal/eni", generatedFile)
	}
}

func TestGenerateGolden(t *testing.T) {
	src, err := os.ReadFile("testdata/small.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	got, err := generate(src, "small.jsonl", "2026-08-01")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "small.golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("generated code differs from %s (run with -update):\n%s", golden, got)
	}
}

func TestParseRows(t *testing.T) {
	const (
		m5    = `{"instanceType":"m5.large","maxENIs":3,"ipv4PerENI":10,"defaultNetworkCardIndex":0,"networkCards":[{"index":0,"maxENIs":3}],"hypervisor":"nitro","bareMetal":false}`
		multi = `{"instanceType":"x9.big","maxENIs":7,"ipv4PerENI":50,"defaultNetworkCardIndex":1,"networkCards":[{"index":0,"maxENIs":4},{"index":1,"maxENIs":6}],"hypervisor":"nitro","bareMetal":false}`
	)
	cases := []struct {
		name    string
		src     string
		want    []row
		wantErr error
	}{
		{
			name: "single nitro type",
			src:  m5,
			want: []row{{"m5.large", 3, 10, 3, "hvNitro", false}},
		},
		{
			name: "default card is not card zero; total sums the cards",
			src:  multi,
			want: []row{{"x9.big", 6, 50, 10, "hvNitro", false}},
		},
		{
			name: "no cards falls back to maxENIs",
			src:  `{"instanceType":"c1.medium","maxENIs":2,"ipv4PerENI":6,"hypervisor":"xen"}`,
			want: []row{{"c1.medium", 2, 6, 2, "hvXen", false}},
		},
		{
			name: "default card missing falls back to maxENIs",
			src:  `{"instanceType":"c1.medium","maxENIs":2,"ipv4PerENI":6,"defaultNetworkCardIndex":3,"networkCards":[{"index":0,"maxENIs":1}],"hypervisor":"xen"}`,
			want: []row{{"c1.medium", 2, 6, 2, "hvXen", false}},
		},
		{
			name: "sorted output, blank lines skipped, bare metal unknown hypervisor",
			src:  multi + "\n\n" + `{"instanceType":"a1.metal","maxENIs":8,"ipv4PerENI":30,"networkCards":[{"index":0,"maxENIs":8}],"hypervisor":"unknown","bareMetal":true}` + "\n" + m5 + "\n",
			want: []row{
				{"a1.metal", 8, 30, 8, "hvUnknown", true},
				{"m5.large", 3, 10, 3, "hvNitro", false},
				{"x9.big", 6, 50, 10, "hvNitro", false},
			},
		},
		{name: "empty input", src: "\n\n", wantErr: ErrNoRecords},
		{name: "duplicate type", src: m5 + "\n" + m5, wantErr: ErrDuplicateType},
		{name: "not json", src: "m5.large 29", wantErr: ErrBadRecord},
		{name: "unknown field", src: `{"instanceType":"m5.large","maxENIs":3,"ipv4PerENI":10,"hypervisor":"nitro","vcpus":2}`, wantErr: ErrBadRecord},
		{name: "trailing data", src: m5 + m5, wantErr: ErrBadRecord},
		{name: "unknown hypervisor", src: `{"instanceType":"m5.large","maxENIs":3,"ipv4PerENI":10,"hypervisor":"kvm"}`, wantErr: ErrBadRecord},
		{name: "bad instance type", src: `{"instanceType":"M5 large","maxENIs":3,"ipv4PerENI":10,"hypervisor":"nitro"}`, wantErr: ErrBadRecord},
		{name: "zero IPv4 per ENI", src: `{"instanceType":"m5.large","maxENIs":3,"ipv4PerENI":0,"hypervisor":"nitro"}`, wantErr: ErrBadRecord},
		{name: "zero ENIs", src: `{"instanceType":"m5.large","maxENIs":0,"ipv4PerENI":10,"hypervisor":"nitro"}`, wantErr: ErrBadRecord},
		{name: "ENIs above uint8", src: `{"instanceType":"m5.large","maxENIs":256,"ipv4PerENI":10,"hypervisor":"nitro"}`, wantErr: ErrBadRecord},
		{name: "card without ENIs", src: `{"instanceType":"m5.large","maxENIs":3,"ipv4PerENI":10,"networkCards":[{"index":0,"maxENIs":0}],"hypervisor":"nitro"}`, wantErr: ErrBadRecord},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseRows([]byte(tc.src))
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d rows %+v, want %+v", len(got), got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("row %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestParseFlags(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		wantErr error
	}{
		{name: "all flags", args: []string{"-in", "a.jsonl", "-out", "b.go", "-source-date", "2026-08"}},
		{name: "day precision", args: []string{"-in", "a.jsonl", "-out", "b.go", "-source-date", "2026-08-31"}},
		{name: "missing in", args: []string{"-out", "b.go", "-source-date", "2026-08"}, wantErr: errUsage},
		{name: "missing out", args: []string{"-in", "a.jsonl", "-source-date", "2026-08"}, wantErr: errUsage},
		{name: "stray argument", args: []string{"-in", "a.jsonl", "-out", "b.go", "-source-date", "2026-08", "x"}, wantErr: errUsage},
		{name: "unknown flag", args: []string{"-bogus"}, wantErr: errUsage},
		{name: "missing date", args: []string{"-in", "a.jsonl", "-out", "b.go"}, wantErr: ErrBadSourceDate},
		{name: "bad month", args: []string{"-in", "a.jsonl", "-out", "b.go", "-source-date", "2026-13"}, wantErr: ErrBadSourceDate},
		{name: "words", args: []string{"-in", "a.jsonl", "-out", "b.go", "-source-date", "August 2026"}, wantErr: ErrBadSourceDate},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseFlags(tc.args, io.Discard)
			if tc.wantErr == nil && err != nil {
				t.Fatalf("err = %v, want nil", err)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

func TestRunWritesOutput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "table.go")
	if err := run([]string{"-in", "testdata/small.jsonl", "-out", out, "-source-date", "2026-08-01"}, io.Discard); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/small.golden")
	if err != nil {
		t.Fatal(err)
	}
	// The golden file was generated under the name small.jsonl, as run uses
	// the input's base name.
	if !bytes.Equal(got, want) {
		t.Fatalf("run output differs from testdata/small.golden:\n%s", got)
	}
}

// FuzzGenerate checks that arbitrary input never panics and that accepted
// input always renders to valid Go.
func FuzzGenerate(f *testing.F) {
	f.Add([]byte(`{"instanceType":"m5.large","maxENIs":3,"ipv4PerENI":10,"defaultNetworkCardIndex":0,"networkCards":[{"index":0,"maxENIs":3}],"hypervisor":"nitro","bareMetal":false}`))
	f.Add([]byte("{}\n{\"instanceType\":\"a.b\"}"))
	f.Fuzz(func(t *testing.T, src []byte) {
		_, _ = generate(src, "fuzz.jsonl", "2026-08")
	})
}
