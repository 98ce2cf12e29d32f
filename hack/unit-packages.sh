#!/usr/bin/env bash
# hack/unit-packages.sh race|plain: the packages make unit tests with the
# race detector, or without it.
#
# -race compiles every dependency again in a configuration nothing else
# builds, so it is kept for packages whose goroutines can share state: a
# package (its code or its tests) that starts goroutines, imports sync,
# sync/atomic or errgroup, serves or calls HTTP (handlers run on the
# server's goroutines), or drives client-go or controller-runtime
# (informers, queues, managers). The rest is tested as make build builds
# (CGO_ENABLED=0, -trimpath), reusing what go vet compiled. test/fault is
# make faults'.
set -euo pipefail
cd "$(dirname "$0")/.."
want=${1:?race or plain}
go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}|{{.Dir}}|{{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}|{{join .GoFiles " "}} {{join .TestGoFiles " "}} {{join .XTestGoFiles " "}}{{end}}' ./... |
while IFS='|' read -r pkg dir imports files; do
  [ -n "$pkg" ] || continue
  case $pkg in */test/fault) continue ;; esac
  kind=plain
  for i in $imports; do
    case $i in
      sync | sync/atomic | golang.org/x/sync/errgroup | net/http | net/http/httptest | \
        sigs.k8s.io/controller-runtime/* | k8s.io/client-go/kubernetes* | k8s.io/client-go/rest | \
        k8s.io/client-go/tools/cache | k8s.io/client-go/tools/record | k8s.io/client-go/informers*) kind=race ;;
    esac
  done
  if [ $kind = plain ] && (cd "$dir" && grep -qE '^\s*go ([A-Za-z_][A-Za-z0-9_.]*\(|func)' $files); then kind=race; fi
  if [ $kind = "$want" ]; then echo "$pkg"; fi
done
