// Package host reads facts about the machine the agent configures: CPU and
// memory from sysfs/procfs, NVIDIA devices on the PCI bus, installed runtime
// binaries, and the kubelet and containerd versions. Every path is read under
// a root directory, so tests run against a fake tree. Versions come from the
// files the AMI writes at build time (/etc/eks/kubelet-version.txt,
// /etc/eks/containerd-version.txt); only when those are missing is the binary
// executed, because the first exec of a cold binary on EBS costs seconds.
package host
