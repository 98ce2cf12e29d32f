// Command gen-eni-table turns the instance network limits JSON lines file
// into internal/config/eni/zz_generated_table.go: a sorted slice literal of compact
// entries that internal/config/eni searches with a binary search, so the table costs
// nothing at package init.
//
// Usage (from the repository root):
//
//	go run ./hack/gen-eni-table -in ../shared/data/instance-network-limits.jsonl \
//	    -out internal/config/eni/zz_generated_table.go -source-date 2026-08
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// options are the command-line flags.
type options struct {
	in         string
	out        string
	sourceDate string
}

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gen-eni-table:", err)
		os.Exit(1)
	}
}

// run parses args, generates the table and writes it to the output file.
func run(args []string, stderr io.Writer) error {
	opts, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	src, err := os.ReadFile(opts.in)
	if err != nil {
		return fmt.Errorf("read input: %w", err)
	}
	code, err := generate(src, filepath.Base(opts.in), opts.sourceDate)
	if err != nil {
		return fmt.Errorf("%s: %w", opts.in, err)
	}
	if err := os.WriteFile(opts.out, code, 0o644); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// errUsage reports missing or malformed flags.
var errUsage = errors.New("usage: gen-eni-table -in FILE.jsonl -out FILE.go -source-date YYYY-MM[-DD]")

// parseFlags reads and checks the command-line flags.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	var opts options
	fs := flag.NewFlagSet("gen-eni-table", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&opts.in, "in", "", "instance network limits, one JSON object per line")
	fs.StringVar(&opts.out, "out", "", "Go file to write")
	fs.StringVar(&opts.sourceDate, "source-date", "", "publication date of the input (YYYY-MM or YYYY-MM-DD)")
	if err := fs.Parse(args); err != nil {
		return options{}, fmt.Errorf("%w: %w", errUsage, err)
	}
	if opts.in == "" || opts.out == "" || fs.NArg() != 0 {
		return options{}, errUsage
	}
	if err := checkSourceDate(opts.sourceDate); err != nil {
		return options{}, err
	}
	return opts, nil
}
