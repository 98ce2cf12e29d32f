// Package doctor answers "why did my node not join?" on the node itself:
// ordered checks from the user data to the container runtime, each with a
// verdict (ok, warn, fail, or skipped because a check it needs failed),
// its evidence and one sentence saying what to do.
//
// Every check is a pure verdict function over evidence; gathering the
// evidence (files under --root, IMDS, the API server with the kubelet's
// own credential, the CRI socket, host commands) sits behind small
// interfaces and runs in parallel where the checks are independent.
package doctor
