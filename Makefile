# nodeboot — see README.md. Every target works on a fresh Debian machine with Go.
SHELL := /bin/bash
GO ?= go
BIN := bin
CACHE := $(CURDIR)/.cache/e2e
PKGS := ./...
# Fuzz budgets are execution counts: duration-based -fuzztime races the
# fuzz coordinator in Go 1.26 and reports a spurious "context deadline
# exceeded" under CPU contention (golang/go#75804).
FUZZTIME ?= 20000x
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/nodeboot/nodeboot/internal/version.Version=$(VERSION)
# celexec: the agent evaluates maxPodsExpression in bin/nodeboot-cel, without
# linking cel-go itself (docs/performance.md).
BUILDTAGS ?= celexec

.PHONY: all build test unit lint fuzz bench bench-nodeadm e2e e2e-deps demo clean

all: build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -tags '$(BUILDTAGS)' -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/...

## test: everything CI runs — lint, unit tests, fuzz smoke, real end-to-end.
test: lint unit fuzz e2e

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) vet -tags '$(BUILDTAGS)' ./internal/config/maxpods/ ./cmd/nodeboot

unit: e2e-deps-aemm
	NODEBOOT_REQUIRE_E2E=$${CI:+1} $(GO) test -race -count=1 $(PKGS)

## fuzz: every Fuzz target, $(FUZZTIME) executions each.
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for f in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/func //'); do \
	    echo "fuzz $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; done

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

## bench-nodeadm: nodeboot and nodeadm side by side (needs root; docs/performance.md).
bench-nodeadm:
	bash hack/bench-vs-nodeadm.sh

e2e-deps-aemm:
	bash test/e2e/scripts/build-aemm.sh

e2e-deps: e2e-deps-aemm
	bash test/e2e/scripts/install-deps.sh
	bash test/e2e/scripts/build-k8s.sh
	bash test/e2e/scripts/build-images.sh

e2e: e2e-deps build
	NODEBOOT_REQUIRE_E2E=1 $(GO) test -count=1 -tags e2e -v -timeout 40m ./test/e2e/

## demo: the agent end to end against AWS's metadata mock, into .cache/demo.
demo: build e2e-deps-aemm
	bash hack/demo.sh

clean:
	rm -rf $(BIN) .cache/demo
