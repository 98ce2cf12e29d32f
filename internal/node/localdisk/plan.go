package localdisk

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Plan is what is left to do, in order.
type Plan struct {
	Steps []Step
	// Notes explain what is deliberately left alone.
	Notes []string
}

// bindMount is a state directory the RAID strategies move onto the array.
type bindMount struct {
	target string // node directory, e.g. /var/lib/kubelet
	unit   string // the daemon that writes it
	// disabledBy is the disabledMounts entry that leaves it out ("" if none).
	disabledBy string
}

// name is the directory's name on the array.
func (b bindMount) name() string { return path.Base(b.target) }

// bindMounts are setup-local-disks' bind mounts, in its order.
var bindMounts = []bindMount{
	{target: "/var/lib/kubelet", unit: "kubelet.service"},
	{target: "/var/lib/containerd", unit: "containerd.service", disabledBy: DisabledContainerd},
	{target: "/var/lib/soci-snapshotter-grpc", unit: "soci-snapshotter.service", disabledBy: DisabledSOCI},
	{target: "/var/log/pods", unit: "kubelet.service", disabledBy: DisabledPodLogs},
}

// MakePlan returns the steps that bring st to what opts asks for. It is
// pure. Steps that depend on something not yet known (the directories on a
// file system that is not mounted yet) are left to the next plan, made after
// these steps ran. The strategy matches in any case, as nodeadm, which
// lowercases it for setup-local-disks, lets raid0 mean RAID0.
func MakePlan(opts Options, st State) (Plan, error) {
	if opts.Strategy == "" {
		return Plan{}, nil
	}
	if len(st.Disks) == 0 {
		return Plan{Notes: []string{"no instance-store NVMe disks (" + ByIDDir + "/*" + instanceStoreMarker + "*); nothing to set up"}}, nil
	}
	switch canonicalStrategy(opts.Strategy) {
	case Mount:
		return planMount(opts, st)
	case RAID0:
		return planRAID(opts, st, 0)
	case RAID10:
		if len(st.Disks) < minRAID10Disks {
			return Plan{}, fmt.Errorf("%w: RAID10 needs at least %d disks, this instance has %d", ErrNotEnoughDisks, minRAID10Disks, len(st.Disks))
		}
		return planRAID(opts, st, 10)
	}
	return Plan{}, fmt.Errorf("unknown local storage strategy %q (want %s, %s or %s)", opts.Strategy, RAID0, RAID10, Mount)
}

// planMount formats the blank disks and mounts each at <mountPath>/<n>. A
// disk keeps the index in its label across reboots (device names may
// change order); blank disks take the lowest free indexes in path order.
func planMount(opts Options, st State) (Plan, error) {
	index := map[string]int{} // disk path -> mount index
	used := map[int]string{}
	var foreign []string
	for _, d := range st.Disks {
		n, ok := d.Sig.labelIndex()
		switch {
		case d.Sig.Blank():
		case ok && used[n] == "":
			index[d.Path], used[n] = n, d.Path
		case ok:
			foreign = append(foreign, fmt.Sprintf("%s also carries label %q (first seen on %s)", d.Path, d.Sig.Label, used[n]))
		default:
			foreign = append(foreign, fmt.Sprintf("%s holds %s", d.Path, d.Sig))
		}
	}
	if len(foreign) > 0 {
		return Plan{}, foreignError(foreign)
	}
	next := 1
	for _, d := range st.Disks {
		if d.Sig.Blank() {
			for used[next] != "" {
				next++
			}
			index[d.Path], used[next] = next, d.Path
		}
	}
	var p Plan
	disks := slices.Clone(st.Disks)
	slices.SortStableFunc(disks, func(a, b Disk) int { return index[a.Path] - index[b.Path] })
	for _, d := range disks {
		n := index[d.Path]
		target := path.Join(opts.mountPath(), strconv.Itoa(n))
		if d.Sig.Blank() {
			p.Steps = append(p.Steps, MakeXFS{Device: d.Path, Label: label(n)})
		}
		p.mount(st, d.Path, d.Dev, target)
	}
	return p, nil
}

// planRAID builds, assembles or reuses the array, then mounts its file
// system at <mountPath>/0 and bind-mounts the state directories from it.
func planRAID(opts Options, st State, level int) (Plan, error) {
	var p Plan
	target := path.Join(opts.mountPath(), "0")
	paths := make([]string, len(st.Disks))
	for i, d := range st.Disks {
		paths[i] = d.Path
	}
	switch {
	case st.Array != nil:
		return existingArray(opts, st, target, paths)
	case allDisks(st.Disks, func(d Disk) bool { return d.Sig.arrayMember() && d.Holder == "" }):
		p.Steps = append(p.Steps, AssembleArray{Disks: paths})
		return p, nil
	case allDisks(st.Disks, func(d Disk) bool { return d.Sig.Blank() }):
		p.Steps = append(p.Steps,
			CreateArray{Level: level, Disks: paths},
			MakeXFS{Device: ArrayDevice, Label: label(0)})
		if p.mount(st, ArrayDevice, "", target) == mountPlanned {
			p.bind(opts, st, target, "", nil)
		}
		return p, nil
	}
	return Plan{}, foreignError(foreignDisks(st.Disks))
}

// existingArray plans for the assembled array: a file system on it if it
// is blank (refusing one that is not ours), then its mount and binds.
func existingArray(opts Options, st State, target string, paths []string) (Plan, error) {
	var p Plan
	a := *st.Array
	switch {
	case a.Sig.Blank():
		p.Steps = append(p.Steps, MakeXFS{Device: a.Path, Label: label(0)})
	case !a.Sig.ours(0):
		return Plan{}, foreignError([]string{fmt.Sprintf("the array %s on %s holds %s", a.Path, strings.Join(paths, ", "), a.Sig)})
	}
	switch p.mount(st, a.Path, a.Dev, target) {
	case mountedAlready:
		p.bind(opts, st, target, a.Dev, st.ArrayDirs)
	case mountPlanned:
		if a.Sig.Blank() { // a new file system: nothing on it yet
			p.bind(opts, st, target, "", nil)
		}
		// Otherwise its directories are known once it is mounted: the
		// next plan binds them.
	}
	return p, nil
}

// foreignDisks says, disk by disk, why a set that is neither all blank nor
// one complete array of ours cannot be used.
func foreignDisks(disks []Disk) []string {
	var foreign []string
	for _, d := range disks {
		switch {
		case d.Sig.Blank():
			foreign = append(foreign, d.Path+" is blank while other disks are not (an incomplete array?)")
		case d.Sig.arrayMember():
			foreign = append(foreign, fmt.Sprintf("%s is a member of the %s array but the array is incomplete (held by %q)", d.Path, ArrayName, d.Holder))
		default:
			foreign = append(foreign, fmt.Sprintf("%s holds %s", d.Path, d.Sig))
		}
	}
	return foreign
}

// mountOutcome says where a file system stands after mount.
type mountOutcome int

const (
	mountedAlready mountOutcome = iota // mounted at the target before the plan
	mountPlanned                       // the plan mounts it
	mountSkipped                       // left alone (see the plan's notes)
)

// mount adds the steps that mount device (number dev, "" when it does not
// exist yet) at target, unless it is mounted there already.
func (p *Plan) mount(st State, device, dev, target string) mountOutcome {
	if dev != "" && slices.Contains(st.mountsOf(dev), target) {
		return mountedAlready
	}
	if other, busy := st.mountedAt(target); busy {
		p.Notes = append(p.Notes, fmt.Sprintf("%s is already a mount point (device %s); %s is not mounted there", target, other.Dev, device))
		return mountSkipped
	}
	if elsewhere := st.mountsOf(dev); dev != "" && len(elsewhere) > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%s is mounted at %s; left as it is", device, strings.Join(elsewhere, ", ")))
		return mountSkipped
	}
	p.Steps = append(p.Steps, MakeDir{Path: target}, MountXFS{Device: device, Target: target})
	return mountPlanned
}

// bind adds the bind mounts that are missing. arrayDev is the array file
// system's device number ("" when it is created by this plan) and dirs the
// directories already on it; a directory that is not there yet gets the
// current contents copied first, with the daemon that writes it stopped.
func (p *Plan) bind(opts Options, st State, arrayMount, arrayDev string, dirs map[string]bool) {
	var todo []bindMount
	for _, b := range bindMounts {
		if b.disabledBy != "" && slices.Contains(opts.DisabledMounts, b.disabledBy) {
			continue
		}
		m, mounted := st.mountedAt(b.target)
		switch {
		case mounted && arrayDev != "" && m.Dev == arrayDev && m.Root == "/"+b.name():
			continue // in place
		case mounted:
			p.Notes = append(p.Notes, fmt.Sprintf("%s is a mount point of another file system (device %s); it is not moved onto the array", b.target, m.Dev))
			continue
		}
		todo = append(todo, b)
	}
	var stopped []string
	for _, b := range todo {
		if !slices.Contains(stopped, b.unit) {
			stopped = append(stopped, b.unit)
			p.Steps = append(p.Steps, StopUnit{Unit: b.unit})
		}
	}
	for _, b := range todo {
		src := path.Join(arrayMount, b.name())
		p.Steps = append(p.Steps, MakeDir{Path: b.target})
		if !dirs[b.name()] {
			p.Steps = append(p.Steps, MakeDir{Path: src}, CopyContents{From: b.target, To: src})
		}
		p.Steps = append(p.Steps, Bind{From: src, To: b.target})
	}
}

func allDisks(disks []Disk, ok func(Disk) bool) bool {
	for _, d := range disks {
		if !ok(d) {
			return false
		}
	}
	return true
}

func foreignError(what []string) error {
	return fmt.Errorf("%w, so it is left untouched: %s; wipe a disk whose data can go (wipefs -a DEVICE) to let nodeboot use it",
		ErrForeignData, strings.Join(what, "; "))
}

// canonicalStrategy is the strategy spelt as the constants spell it, when
// it is one of them in another case; otherwise s.
func canonicalStrategy(s string) string {
	for _, known := range []string{Mount, RAID0, RAID10} {
		if strings.EqualFold(s, known) {
			return known
		}
	}
	return s
}
