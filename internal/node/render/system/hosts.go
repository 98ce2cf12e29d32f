package system

import (
	"bytes"
	"fmt"
	"strings"
)

// HostsPath is the hosts file Outposts nodes pin the API server in.
const HostsPath = "/etc/hosts"

// Markers delimit the block nodeboot owns in /etc/hosts.
const (
	hostsBegin = "# BEGIN nodeboot: API server pinned for Outposts (do not edit)"
	hostsEnd   = "# END nodeboot"
)

// PinnedHosts returns /etc/hosts with one "<ip>\t<host>" line per address
// for the API server host, inside a marked block that replaces any previous
// one, so re-running never appends duplicates (nodeadm appends on every
// run). Lines outside the block are kept as they are. With no addresses the
// block is removed.
//
// Only a whole block (a BEGIN line and the next marker line being its END)
// is replaced. A marker without its partner (an edited or truncated file)
// is kept, with every line after it, and reported in the warnings: lines
// nodeboot cannot prove it wrote are never dropped.
func PinnedHosts(existing []byte, host string, ips []string) ([]byte, []string) {
	lines := strings.SplitAfter(string(existing), "\n")
	drop, warnings := ownBlocks(lines)
	var out bytes.Buffer
	for i, line := range lines {
		if !drop[i] {
			out.WriteString(line)
		}
	}
	if len(ips) == 0 {
		return out.Bytes(), warnings
	}
	if out.Len() > 0 && !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
		out.WriteByte('\n')
	}
	fmt.Fprintln(&out, hostsBegin)
	for _, ip := range ips {
		fmt.Fprintf(&out, "%s\t%s\n", ip, host)
	}
	fmt.Fprintln(&out, hostsEnd)
	return out.Bytes(), warnings
}

// ownBlocks marks the lines of whole nodeboot blocks, markers included, and
// describes every marker that has no partner.
func ownBlocks(lines []string) (map[int]bool, []string) {
	drop := map[int]bool{}
	var warnings []string
	begin := -1 // index of an open BEGIN
	orphan := func(i int, what string) {
		warnings = append(warnings, fmt.Sprintf("%s line %d: %s; it and the lines after it are kept as they are (fix the file by hand)", HostsPath, i+1, what))
	}
	for i, line := range lines {
		switch strings.TrimRight(line, "\r\n") {
		case hostsBegin:
			if begin >= 0 {
				orphan(begin, "nodeboot BEGIN marker without its END marker")
			}
			begin = i
		case hostsEnd:
			if begin < 0 {
				orphan(i, "nodeboot END marker without a BEGIN marker")
				continue
			}
			for j := begin; j <= i; j++ {
				drop[j] = true
			}
			begin = -1
		}
	}
	if begin >= 0 {
		orphan(begin, "nodeboot BEGIN marker without its END marker")
	}
	return drop, warnings
}
