package system

import (
	"strings"

	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/node/render"
)

// ResolvedDropInPath is the systemd-resolved drop-in (runtime directory, so
// it disappears at reboot like nodeadm's).
const ResolvedDropInPath = "/run/systemd/resolved.conf.d/40-eks.conf"

// resolvedFile renders `[Resolve]` with DNS= and Domains= lines, each
// written only when its list is non-empty, entries space-separated in the
// given order. Entries are written as given: validation checks their
// syntax. ok is false when both lists are empty.
func resolvedFile(network hub.Network) (file render.File, ok bool) {
	if len(network.Nameservers) == 0 && len(network.Domains) == 0 {
		return render.File{}, false
	}
	var b strings.Builder
	b.WriteString("[Resolve]\n")
	if len(network.Nameservers) > 0 {
		b.WriteString("DNS=" + strings.Join(network.Nameservers, " ") + "\n")
	}
	if len(network.Domains) > 0 {
		b.WriteString("Domains=" + strings.Join(network.Domains, " ") + "\n")
	}
	return render.File{Path: ResolvedDropInPath, Mode: fileMode, Data: []byte(b.String())}, true
}
