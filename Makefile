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
# Everything except the race-detected unit tests and fuzzing builds as the
# release binaries do (no cgo, -trimpath): then a cold machine compiles the
# dependencies once for the build, lint, the fault suite and the end-to-end
# tests instead of twice (docs/performance.md).
PLAIN := CGO_ENABLED=0
PLAINFLAGS := -trimpath

.PHONY: all build test unit lint fuzz faults oracle bench bench-nodeadm e2e e2e-deps kubelet-compat demo clean generate bench-rollout bench-approver

all: build

build:
	$(PLAIN) $(GO) build $(PLAINFLAGS) -tags '$(BUILDTAGS)' -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/...

## test: lint (gofmt, go vet, staticcheck), unit tests, fuzz smoke, fault suite, nodeadm oracle, real end-to-end (CI also runs kubelet-compat).
test: lint unit fuzz faults oracle e2e

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(PLAIN) $(GO) vet $(PLAINFLAGS) $(PKGS)
	$(PLAIN) $(GO) vet $(PLAINFLAGS) -tags '$(BUILDTAGS)' ./internal/config/maxpods/ ./cmd/nodeboot
	$(PLAIN) $(GO) vet $(PLAINFLAGS) -tags oracle ./test/oracle/
	bash hack/staticcheck.sh ./...
	bash hack/staticcheck.sh -tags e2e,kubeletcompat,nodeadmbench,faultinject,celexec,oracle ./...

## unit: the unit tests; with -race only the packages whose goroutines can
## share state (hack/unit-packages.sh says which), the rest built as make build.
unit: e2e-deps-aemm
	NODEBOOT_REQUIRE_E2E=$${CI:+1} $(GO) test -race -count=1 -timeout 30m $$(bash hack/unit-packages.sh race)
	NODEBOOT_REQUIRE_E2E=$${CI:+1} $(PLAIN) $(GO) test $(PLAINFLAGS) -count=1 -timeout 30m $$(bash hack/unit-packages.sh plain)

## faults: the fault suite (test/fault; the bind-mount and namespace faults
## need root), printing its counts at the end.
faults: e2e-deps-aemm
	NODEBOOT_REQUIRE_E2E=$${CI:+1} $(PLAIN) $(GO) test $(PLAINFLAGS) -count=1 -v -timeout 20m ./test/fault/

## fuzz: every Fuzz target, $(FUZZTIME) executions each, from one test
## binary per package (hack/fuzz.sh).
fuzz:
	FUZZTIME=$(FUZZTIME) bash hack/fuzz.sh

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
	bash test/e2e/scripts/build-authenticator.sh
	bash test/e2e/scripts/build-kwok.sh
	bash test/e2e/scripts/build-images.sh

## kubelet-compat: real 1.28, 1.31 and 1.34 kubelets read the rendered kubelet files (test/kubeletcompat).
## Not part of test: the two old kubelets cost minutes to build cold (docs/performance.md); .ci/run runs it.
kubelet-compat: e2e-deps
	bash test/e2e/scripts/build-kubelet-compat.sh
	$(PLAIN) $(GO) vet $(PLAINFLAGS) -tags kubeletcompat ./test/kubeletcompat/
	$(PLAIN) $(GO) test $(PLAINFLAGS) -count=1 -tags kubeletcompat ./test/kubeletcompat/

## oracle: nodeboot against the real nodeadm, built from its pinned module
## (test/oracle; needs root and dbus-daemon): nodeadm's own e2e cases,
## $(ORACLE_INPUTS) generated inputs with fixed seeds and the hand-written
## inputs (docs/nodeadm-oracle.md);
## aws-auth ConfigMaps against the authenticator's own code (docs/identity.md;
## NODEBOOT_AWSAUTH_INPUTS generated ones, 1000 by default) and username
## templates through its real webhook server; userdata generate --as
## eksctl against the real eksctl (docs/userdata-generate.md).
## Longer runs: FuzzGeneratedUserData, FuzzAWSAuthAgainstAuthenticator.
ORACLE_INPUTS ?= 300
oracle: e2e-deps-aemm
	bash test/e2e/scripts/build-nodeadm.sh
	bash test/e2e/scripts/build-eksctl.sh
	NODEBOOT_REQUIRE_E2E=1 NODEBOOT_ORACLE_INPUTS=$(ORACLE_INPUTS) $(PLAIN) $(GO) test $(PLAINFLAGS) -count=1 -tags oracle -v -parallel 4 -timeout 30m ./test/oracle/

e2e: e2e-deps build
	NODEBOOT_REQUIRE_E2E=1 $(PLAIN) $(GO) test $(PLAINFLAGS) -count=1 -tags e2e -v -timeout 60m ./test/e2e/

## bench-rollout: the 500-node kwok rollout scale benchmark, BENCH_NODES=1000 for 1,000 (needs root; not part of make test).
BENCH_NODES ?= 500
bench-rollout: e2e-deps build
	NODEBOOT_REQUIRE_E2E=1 NODEBOOT_BENCH_ROLLOUT=1 NODEBOOT_BENCH_NODES=$(BENCH_NODES) $(PLAIN) $(GO) test $(PLAINFLAGS) -count=1 -tags e2e -v -timeout 60m -run TestRolloutScale ./test/e2e/

## bench-approver: 1,000 nodes' serving CSRs in 1.5 s against the harness's own floor (needs root; not part of make test).
bench-approver: e2e-deps build
	NODEBOOT_REQUIRE_E2E=1 NODEBOOT_BENCH_APPROVER=1 $(PLAIN) $(GO) test $(PLAINFLAGS) -count=1 -tags e2e -v -timeout 60m -run TestApproverBurst ./test/e2e/

## demo: the agent end to end against AWS's metadata mock, into .cache/demo.
demo: build e2e-deps-aemm
	bash hack/demo.sh

## generate: NodeGroupRollout deep-copy functions and CRD (controller-gen, pinned in test/tools).
generate:
	bash hack/generate.sh

clean:
	rm -rf $(BIN) .cache/demo
