#!/usr/bin/env bash
# Prints this machine's speed as the CPU time (user+sys) of one run of a Go
# hello world, the yardstick docs/performance.md compares CI times with
# (about 1.5-1.8 ms on the fast kind of 2-core machine, 5-7 ms on the slow
# kind), and the load average it was measured under.
set -euo pipefail
N=${N:-300}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' > "$W/main.go"
printf 'module hello\n\ngo 1.22\n' > "$W/go.mod"
(cd "$W" && CGO_ENABLED=0 GOFLAGS= go build -o hello .)
# children's user and sys seconds, from bash's times builtin (getrusage),
# which must run in this shell (a command substitution is a subshell)
cpu() { tail -1 "$1" | sed 's/m/ /g; s/s//g' | awk '{print ($1*60+$2)+($3*60+$4)}'; }
times > "$W/before"
for _ in $(seq "$N"); do "$W/hello" > /dev/null; done
times > "$W/after"
before=$(cpu "$W/before")
after=$(cpu "$W/after")
awk -v a="$after" -v b="$before" -v n="$N" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" \
  'BEGIN { printf "machine speed: a Go hello world takes %.2f ms of CPU (mean of %d runs; load average %s)\n", (a-b)*1000/n, n, load }'
