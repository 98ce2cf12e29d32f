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
func PinnedHosts(existing []byte, host string, ips []string) []byte {
	var out bytes.Buffer
	inBlock := false
	for _, line := range strings.SplitAfter(string(existing), "\n") {
		trimmed := strings.TrimRight(line, "\r\n")
		switch {
		case trimmed == hostsBegin:
			inBlock = true
		case inBlock && trimmed == hostsEnd:
			inBlock = false
		case !inBlock && line != "":
			out.WriteString(line)
		}
	}
	if len(ips) == 0 {
		return out.Bytes()
	}
	if out.Len() > 0 && !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
		out.WriteByte('\n')
	}
	fmt.Fprintln(&out, hostsBegin)
	for _, ip := range ips {
		fmt.Fprintf(&out, "%s\t%s\n", ip, host)
	}
	fmt.Fprintln(&out, hostsEnd)
	return out.Bytes()
}
