// Package fault is the fault suite of issue 11 (`make faults`, part of
// `make test`). It builds nodeboot with -tags faultinject and runs
// `nodeboot init` against local dependencies that misbehave the ways the
// review found unbounded or unsafe: an IMDS that sends its headers and then
// trickles the body, that accepts and never answers, whose token endpoint
// answers 5xx; EKS and EC2 endpoints that accept and never answer; a named
// pipe and a 1 GiB file as sources; a kill in the middle of the renames;
// two runs at once; a symlinked directory inside the root; a bind-mounted
// target and an undeletable stale drop-in; a directory where a file must go;
// a rejected node started through bootstrap.sh.
//
// After every fault it asserts that the run ended (a bound that only catches
// a hang), that the root holds either the previous or the new complete set
// of files, that no temporary file is left, and that the message names what
// failed. It prints its counts: inputs, faults, rejections, the longest run
// and the peak RSS of any run (docs/failure-bounds.md records them). No
// assertion is on a duration.
package fault
