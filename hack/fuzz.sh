#!/usr/bin/env bash
# make fuzz: runs every Fuzz target in the module for $FUZZTIME executions
# (an execution count, see the Makefile).
#
# `go test -fuzz` fuzzes one target per invocation and links a test binary
# each time, and it compiles every dependency again with the fuzzer's
# coverage instrumentation: a configuration nothing else builds. Here each
# package with fuzz targets is compiled once, as `make build` compiles
# (CGO_ENABLED=0, -trimpath), so its dependencies are the packages go vet
# and the build already compiled; only this module's own packages get the
# instrumentation `go test -fuzz` adds (-d=libfuzzer), so coverage guides
# the mutations through nodeboot's parsers. Every target then runs from
# that one binary, in its package directory (seed corpus and new crashers in
# testdata/fuzz), with the same fuzz cache directory `go test` would pass.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-20000x}
MOD=$(go list -m)
CACHE=$(go env GOCACHE)/fuzz
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
go list -f '{{.ImportPath}} {{.Dir}}' ./... | while read -r pkg dir; do
  case $pkg in */test/oracle) continue ;; esac # its fuzz target needs -tags oracle and root (make oracle)
  targets=$( (cat "$dir"/*_test.go 2>/dev/null || true) | sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p')
  [ -n "$targets" ] || continue
  bin="$W/$(basename "$dir").test"
  echo "fuzz build $pkg"
  CGO_ENABLED=0 go test -c -trimpath -gcflags="$MOD/...=-d=libfuzzer" -o "$bin" "$pkg"
  for f in $targets; do
    echo "fuzz $pkg $f"
    (cd "$dir" && "$bin" -test.run='^$' -test.fuzz="^$f\$" -test.fuzztime="$FUZZTIME" \
      -test.fuzzcachedir="$CACHE/$pkg" -test.paniconexit0 -test.v)
  done
done
