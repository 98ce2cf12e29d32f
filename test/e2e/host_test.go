//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// hostInfo is what the fake EC2 instance reports about this machine. The
// kubelet validates --node-ip against the host's interfaces, so
// local-ipv4 must be the real primary IPv4.
type hostInfo struct {
	iface   string
	ip      net.IP
	network *net.IPNet // the IP's subnet, the fake VPC CIDR
	mac     string
}

// ec2PrivateDNSName is the EC2 private DNS name of ip in region, e.g.
// ip-192-0-2-2.us-west-2.compute.internal.
func ec2PrivateDNSName(ip net.IP, region string) string {
	return "ip-" + strings.ReplaceAll(ip.To4().String(), ".", "-") + "." + region + ".compute.internal"
}

// detectHost returns the interface of the IPv4 default route and its first
// IPv4 address (falling back to the first up, non-loopback IPv4 interface).
func detectHost() (hostInfo, error) {
	name, _ := defaultRouteInterface("/proc/net/route")
	ifaces, err := net.Interfaces()
	if err != nil {
		return hostInfo{}, fmt.Errorf("list interfaces: %w", err)
	}
	slices.SortStableFunc(ifaces, func(a, b net.Interface) int {
		// The default-route interface first.
		switch {
		case a.Name == name && b.Name != name:
			return -1
		case b.Name == name && a.Name != name:
			return 1
		}
		return 0
	})
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok || ipn.IP.To4() == nil || ipn.IP.IsLinkLocalUnicast() {
				continue
			}
			mac := ifc.HardwareAddr.String()
			if mac == "" {
				mac = "0e:00:00:00:00:01"
			}
			network := &net.IPNet{IP: ipn.IP.Mask(ipn.Mask), Mask: ipn.Mask}
			return hostInfo{iface: ifc.Name, ip: ipn.IP.To4(), network: network, mac: mac}, nil
		}
	}
	return hostInfo{}, errors.New("no non-loopback IPv4 address on this host")
}

// defaultRouteInterface parses /proc/net/route for the 0.0.0.0/0 route.
func defaultRouteInterface(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 8 && fields[1] == "00000000" && fields[7] == "00000000" {
			return fields[0], nil
		}
	}
	return "", errors.New("no default route")
}

// hostsMarker tags the /etc/hosts lines the suite adds, so cleanup removes
// exactly those.
const hostsMarker = "# nodeboot-e2e"

// addHostsEntry appends "ip name # nodeboot-e2e" to the hosts file: the
// API server dials the kubelet by its node name (Hostname address), and the
// kubelet listens on that one address.
func addHostsEntry(hostsFile, ip, name string) error {
	f, err := os.OpenFile(hostsFile, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", hostsFile, err)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%s %s %s\n", ip, name, hostsMarker); err != nil {
		return fmt.Errorf("append to %s: %w", hostsFile, err)
	}
	return nil
}

// removeHostsEntries removes every line carrying hostsMarker. It rewrites
// the file in place (same inode), since /etc/hosts may be a bind mount.
func removeHostsEntries(hostsFile string) error {
	data, err := os.ReadFile(hostsFile)
	if err != nil {
		return err
	}
	var kept [][]byte
	for line := range bytes.Lines(data) {
		if !bytes.Contains(line, []byte(hostsMarker)) {
			kept = append(kept, line)
		}
	}
	out := bytes.Join(kept, nil)
	if bytes.Equal(out, data) {
		return nil
	}
	f, err := os.OpenFile(hostsFile, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(out); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// fileSnapshot remembers what a set of host paths held, so that files an
// agent or the harness writes there can be put back exactly.
type fileSnapshot struct {
	files []savedFile
	// createdDirs are ancestors that did not exist, deepest first.
	createdDirs []string
}

type savedFile struct {
	path    string
	existed bool
	data    []byte
	mode    fs.FileMode
}

// snapshotFiles records paths (regular files or absent) and which of their
// ancestor directories do not exist yet.
func snapshotFiles(paths []string) (*fileSnapshot, error) {
	s := &fileSnapshot{}
	dirs := map[string]bool{}
	for _, p := range paths {
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			s.files = append(s.files, savedFile{path: p})
		case err != nil:
			return nil, err
		case !fi.Mode().IsRegular():
			return nil, fmt.Errorf("snapshot %s: not a regular file (%s)", p, fi.Mode().Type())
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			s.files = append(s.files, savedFile{path: p, existed: true, data: data, mode: fi.Mode().Perm()})
		}
		for d := filepath.Dir(p); d != "/" && d != "."; d = filepath.Dir(d) {
			if _, err := os.Stat(d); errors.Is(err, fs.ErrNotExist) {
				dirs[d] = true
			}
		}
	}
	for d := range dirs {
		s.createdDirs = append(s.createdDirs, d)
	}
	// Deepest first, so children go before their parents.
	slices.SortFunc(s.createdDirs, func(a, b string) int {
		return strings.Count(b, "/") - strings.Count(a, "/")
	})
	return s, nil
}

// restore puts every file back (or removes it) and removes the directories
// that did not exist. A created directory that is not empty afterwards is
// reported, not removed: something else wrote there.
func (s *fileSnapshot) restore() error {
	var errs []error
	for _, f := range s.files {
		if f.existed {
			if err := os.WriteFile(f.path, f.data, f.mode); err != nil {
				errs = append(errs, err)
			} else if err := os.Chmod(f.path, f.mode); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	for _, d := range s.createdDirs {
		err := os.Remove(d)
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			continue
		}
		entries, _ := os.ReadDir(d)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		errs = append(errs, fmt.Errorf("directory %s did not exist before and still holds %v", d, names))
	}
	return errors.Join(errs...)
}

// listFiles returns every file under root, as absolute node paths (root
// stripped), leaving out the skip paths.
func listFiles(root string, skip ...string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		node := "/" + rel
		if slices.Contains(skip, node) || d.IsDir() {
			return nil
		}
		out = append(out, node)
		return nil
	})
	return out, err
}

// topLevelEntries lists the entries of dirs, to detect what a scenario left
// behind at the top of the file system hierarchy.
func topLevelEntries(dirs []string) map[string]bool {
	seen := map[string]bool{}
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			seen[filepath.Join(d, e.Name())] = true
		}
	}
	return seen
}
