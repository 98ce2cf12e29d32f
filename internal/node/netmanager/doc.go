// Package netmanager is the network side of an AL2023-style node image,
// like nodeadm's internal commands (nodeadm-behavior.md §6.4):
//
//   - udev-net-manager runs when a network interface appears (udev rule
//     90-nodeboot-net.rules starts nodeboot-net-manager@<if>.service). It
//     decides who configures the interface: systemd-networkd for the
//     interfaces present before the run phase starts (the primary ENI and
//     ENIs attached at launch), the VPC CNI for ENIs it attaches later. The
//     decision is remembered per instance and interface, so a reboot keeps
//     it. For networkd it writes /run/systemd/network/70-eks-<if>.network;
//     for the primary interface it also switches off the image's catch-all
//     80-ec2.network.
//   - boot-hook runs before the config phase and waits, bounded, until the
//     links networkd should manage are configured and every other link is
//     left unmanaged, so that the first IMDS and AWS calls go out over a
//     configured primary interface instead of failing with "network is
//     unreachable".
//
// The decisions, the rendered .network files and the readiness rule are
// pure functions; Helper does the I/O (sysfs, IMDS, files under --root,
// networkctl). Neither command is a stable interface: they exist for the
// packaged units.
package netmanager
