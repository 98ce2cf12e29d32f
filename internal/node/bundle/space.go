package bundle

import "syscall"

// statfsFree returns the bytes available to unprivileged writers on the
// file system of path.
func statfsFree(path string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// cgroup2Magic is the statfs type of a cgroup v2 (unified) mount.
const cgroup2Magic = 0x63677270

// cgroupVersion tells cgroup v1 from v2 by the type of /sys/fs/cgroup.
func cgroupVersion(r *runner) ([]byte, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(r.path("/sys/fs/cgroup"), &st); err != nil {
		return nil, err
	}
	if st.Type == cgroup2Magic {
		return []byte("cgroup v2 (unified hierarchy at /sys/fs/cgroup)\n"), nil
	}
	return []byte("cgroup v1 (legacy or hybrid hierarchy at /sys/fs/cgroup)\n"), nil
}
