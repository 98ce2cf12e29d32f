// Package localdisk sets up EC2 instance-store NVMe disks the way nodeadm's
// setup-local-disks does (spec.instance.localStorage, AL2 --local-disks):
//
//   - RAID0 / RAID10: one md array (/dev/md/kubernetes, RAID10 needs four
//     disks or more) with an XFS file system mounted at <mountPath>/0, then
//     /var/lib/kubelet, /var/lib/containerd, /var/lib/soci-snapshotter-grpc
//     and /var/log/pods bind-mounted from <mountPath>/0/<name> (the
//     Containerd, SOCI and PodLogs entries of disabledMounts leave one out).
//     A directory's contents are copied onto the array the first time, with
//     the daemon that uses it stopped if it runs.
//   - Mount: every disk gets its own XFS file system, mounted at
//     <mountPath>/1, /2, … and nothing is bind-mounted.
//
// mountPath defaults to /mnt/k8s-disks. Disks are found as
// /dev/disk/by-id/*NVMe_Instance_Storage_* (whole disks; partitions are not
// candidates).
//
// # Data safety
//
// nodeboot formats only blank disks: a disk or array on which blkid finds
// no signature at all (no file system, partition table or RAID member
// superblock). Every file system it creates is XFS labelled nodeboot-<n>
// (<n> is its mount directory: 0 for the array, 1… for single disks); a
// file system with that label is nodeboot's own and is mounted as it is,
// which is what happens on every reboot (instance-store data survives a
// reboot, not a stop and start). An md array named "kubernetes" is
// assembled rather than created again. Anything else found on a disk —
// another file system, an XFS without nodeboot's label, a partition table,
// a member of another array — stops the setup with an error naming the
// disk and what it holds; nodeboot never overwrites it (mkfs.xfs is run
// without -f, so it would refuse too). Wipe such a disk yourself
// (wipefs -a DEVICE) if its data can go.
//
// # Structure
//
// Plan is pure: from the disks found and the current state (signatures,
// arrays, mounts, directories on the array) it returns the ordered steps
// still needed, each printable as the command it runs. Setup probes, plans,
// runs the steps through an Executor and probes again, until nothing is left
// to do; so it is idempotent, and a second run finds an empty plan.
package localdisk
