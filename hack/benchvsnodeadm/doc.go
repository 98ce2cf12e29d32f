// Package benchvsnodeadm measures nodeboot and nodeadm side by side: the same
// user data, the same loopback amazon-ec2-metadata-mock and EC2 Query stub,
// `init --skip run` for both, interleaved, reading CPU time and peak RSS from
// wait4's rusage. It is a measuring tool, not a test: its only file with code
// is built with the nodeadmbench tag and it never fails on a figure. Run it
// with hack/bench-vs-nodeadm.sh, which builds nodeadm from its pinned Go module
// (test/tools/nodeadm) and runs this package as root in a private mount
// namespace.
package benchvsnodeadm
