package maxpods

import "github.com/nodeboot/nodeboot/internal/config/eni"

// WindowsMaxPods returns the default max pods of a Windows node, which uses
// a single ENI: IPv4 addresses per ENI − 1 (m5.large → 9), floor 0. It is
// used when converting Windows bootstrap settings.
func WindowsMaxPods(l eni.Limits) int {
	return max(l.IPv4PerENI-1, 0)
}
