package doctor

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// DiskStats is a file system's space and inodes, as statfs(2) tells them
// to unprivileged writers.
type DiskStats struct {
	// Device identifies the file system (paths on one share it).
	Device             uint64
	Total, Avail       uint64
	Inodes, InodesFree uint64
}

// statfs is the real DiskStats of a host path.
func statfs(path string) (DiskStats, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return DiskStats{}, err
	}
	var dev syscall.Stat_t
	if err := syscall.Stat(path, &dev); err != nil {
		return DiskStats{}, err
	}
	bs := uint64(st.Bsize)
	return DiskStats{Device: dev.Dev, Total: st.Blocks * bs, Avail: st.Bavail * bs, Inodes: st.Files, InodesFree: st.Ffree}, nil
}

// diskUse is one place the node writes, and what the kubelet needs there.
type diskUse struct {
	// Path is the node path; What says who writes there.
	Path, What string
	// Signal is the kubelet's eviction signal for it: nodefs or imagefs.
	Signal string
}

// DiskPlace is one file system the kubelet, containerd or pod logs write
// to, with the places on it.
type DiskPlace struct {
	Uses  []diskUse
	Stats DiskStats
	Err   error
}

// DiskEvidence is the space where the node writes, and the kubelet's
// eviction thresholds.
type DiskEvidence struct {
	Places []DiskPlace
	// Thresholds are the kubelet's evictionHard signals ("nodefs.available": "10%").
	Thresholds map[string]string
	// NoSpaceLines are kubelet error lines saying "no space left on device".
	NoSpaceLines []string
}

// kubeletEvictionDefaults are the kubelet's default evictionHard signals
// for disks.
var kubeletEvictionDefaults = map[string]string{
	"nodefs.available": "10%", "nodefs.inodesFree": "5%", "imagefs.available": "15%", "imagefs.inodesFree": "5%",
}

// gatherDisk measures the file systems of the kubelet's root directory,
// containerd's root and the pod and node logs.
func gatherDisk(f Files, k KubeletFacts, stat func(string) (DiskStats, error), runtime RuntimeEvidence) DiskEvidence {
	ev := DiskEvidence{Thresholds: map[string]string{}}
	for sig, v := range kubeletEvictionDefaults {
		ev.Thresholds[sig] = v
	}
	for sig, v := range k.Config.EvictionHard {
		ev.Thresholds[sig] = v
	}
	uses := []diskUse{
		{Path: firstNonEmpty(flagValue(k.Args, "root-dir"), "/var/lib/kubelet"), What: "kubelet", Signal: "nodefs"},
		{Path: "/var/log/pods", What: "pod logs", Signal: "nodefs"},
		{Path: "/var/log", What: "node logs", Signal: "nodefs"},
		{Path: "/var/lib/containerd", What: "containerd's images and snapshots", Signal: "imagefs"},
	}
	byDevice := map[uint64]int{}
	for _, u := range uses {
		st, err := stat(existingParent(f, u.Path))
		i, seen := byDevice[st.Device]
		if err != nil || !seen {
			ev.Places = append(ev.Places, DiskPlace{Stats: st, Err: err})
			i = len(ev.Places) - 1
			if err == nil {
				byDevice[st.Device] = i
			}
		}
		ev.Places[i].Uses = append(ev.Places[i].Uses, u)
	}
	for _, line := range runtime.ErrorLines {
		if strings.Contains(line, "no space left on device") {
			ev.NoSpaceLines = append(ev.NoSpaceLines, line)
		}
	}
	return ev
}

// existingParent maps a node path to the host path of its nearest
// existing directory (the file system it would be created on).
func existingParent(f Files, nodePath string) string {
	p := f.Path(nodePath)
	for {
		if _, err := os.Stat(p); err == nil || filepath.Dir(p) == p {
			return p
		}
		p = filepath.Dir(p)
	}
}

// diskVerdict judges each file system against the kubelet's eviction
// thresholds: below one, the kubelet reports DiskPressure, evicts pods
// and garbage-collects images; at zero, writes fail.
func diskVerdict(ev DiskEvidence) Result {
	r := Result{ID: CheckDisk, Verdict: OK}
	var fails, warns []string
	for _, p := range ev.Places {
		line, state := judgePlace(p, ev.Thresholds)
		r.Evidence = append(r.Evidence, line)
		switch state {
		case Fail:
			fails = append(fails, p.short())
		case Warn:
			warns = append(warns, p.short())
		}
	}
	for _, l := range ev.NoSpaceLines {
		r.Evidence = append(r.Evidence, "kubelet error: "+l)
	}
	switch {
	case len(fails) > 0:
		r.Verdict, r.Summary = Fail, "below the kubelet's eviction threshold: "+strings.Join(fails, "; ")
		r.Action = "Free space or inodes there (crictl rmi --prune for unused images, old logs under /var/log), or give the node a larger volume (the launch template's block device): below the threshold the kubelet evicts pods and refuses new ones; at zero, writes fail with \"no space left on device\"."
	case len(warns) > 0:
		r.Verdict, r.Summary = Warn, "close to the kubelet's eviction threshold: "+strings.Join(warns, "; ")
		r.Action = "Free space or inodes before the kubelet starts evicting pods."
	case len(ev.NoSpaceLines) > 0:
		r.Verdict, r.Summary = Warn, "space is available now, but the kubelet logged \"no space left on device\""
		r.Action = "Something filled the disk and was cleaned up, or fills it from time to time: read the kubelet's errors and the df output of a support bundle."
	default:
		r.Summary = fmt.Sprintf("%d file system(s) above the kubelet's eviction thresholds", len(ev.Places))
	}
	return r
}

// short names a place's paths with its free space and inodes in percent.
func (p DiskPlace) short() string {
	var paths []string
	for _, u := range p.Uses {
		paths = append(paths, u.Path)
	}
	s := p.Stats
	return fmt.Sprintf("%s: %s free (%.1f%%), %.1f%% of inodes free", strings.Join(paths, ", "), bytesOf(s.Avail), percent(s.Avail, s.Total), percent(s.InodesFree, s.Inodes))
}

func percent(part, whole uint64) float64 {
	if whole == 0 {
		return 100
	}
	return 100 * float64(part) / float64(whole)
}

// judgePlace describes one file system and grades it against the
// thresholds of every eviction signal its places carry.
func judgePlace(p DiskPlace, thresholds map[string]string) (string, Verdict) {
	var names, signals, limits []string
	for _, u := range p.Uses {
		names = append(names, u.Path+" ("+u.What+")")
		if !slices.Contains(signals, u.Signal) {
			signals = append(signals, u.Signal)
		}
	}
	where := strings.Join(names, ", ")
	if p.Err != nil {
		return where + ": " + p.Err.Error(), Warn
	}
	s, state := p.Stats, OK
	for _, sig := range signals {
		space, inodes := thresholds[sig+".available"], thresholds[sig+".inodesFree"]
		limits = append(limits, sig+".available<"+space, sig+".inodesFree<"+inodes)
		state = worst(state, grade(s.Avail, s.Total, space))
		if s.Inodes > 0 { // file systems without an inode limit report 0
			state = worst(state, grade(s.InodesFree, s.Inodes, inodes))
		}
	}
	return fmt.Sprintf("%s: %s of %s free, %d of %d inodes free (kubelet eviction: %s)",
		where, bytesOf(s.Avail), bytesOf(s.Total), s.InodesFree, s.Inodes, strings.Join(limits, ", ")), state
}

// grade compares free of total with a threshold ("10%" or a quantity):
// below it fails, within a quarter of it again above it warns.
func grade(free, total uint64, threshold string) Verdict {
	limit, err := thresholdBytes(threshold, total)
	switch {
	case free == 0:
		return Fail
	case err != nil:
		return OK
	case float64(free) < limit:
		return Fail
	case float64(free) < 1.25*limit:
		return Warn
	}
	return OK
}

func worst(a, b Verdict) Verdict {
	rank := map[Verdict]int{OK: 0, Warn: 1, Fail: 2}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// thresholdBytes reads a kubelet eviction threshold: a percentage of
// total or a quantity ("10Gi", "500M", "1000"). Written by hand: the
// apimachinery quantity parser would bring its packages into the node
// agent's boot-path binary for this one use.
func thresholdBytes(v string, total uint64) (float64, error) {
	v = strings.TrimSpace(v)
	if pct, ok := strings.CutSuffix(v, "%"); ok {
		f, err := strconv.ParseFloat(pct, 64)
		return f / 100 * float64(total), err
	}
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}, {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}} {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			f, err := strconv.ParseFloat(n, 64)
			return f * u.mult, err
		}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) {
		return 0, errors.Join(errors.New("not a quantity: "+v), err)
	}
	return f, nil
}

// bytesOf renders a size in binary units.
func bytesOf(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", n>>10)
}
