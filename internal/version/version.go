// Package version reports the build's version, set at link time with
// -ldflags "-X github.com/nodeboot/nodeboot/internal/version.Version=v1.2.3".
package version

import "runtime/debug"

// Version is the release version; "dev" for local builds.
var Version = "dev"

// String returns the version and, when known, the VCS revision.
func String() string {
	v := Version
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
	}
	return v
}
