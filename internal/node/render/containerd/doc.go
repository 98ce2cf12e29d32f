// Package containerd renders containerd's configuration from a merged,
// enriched hub.NodeConfig: /etc/containerd/config.toml, the OCI base runtime
// spec, and the SOCI snapshotter files when FastImagePull applies. Render
// is pure; the caller detects the runtime binary and applies the files.
//
// Template choice follows nodeadm: containerd 1.x gets a version 2
// configuration, containerd 2.x a version 3 one. The user's
// containerd.config is deep-merged over the rendered template (tables key
// by key, arrays replaced, user wins) because containerd's own `imports`
// replace whole sections; without user TOML the template is written
// verbatim.
//
// Divergence from nodeadm: when the user's TOML is a version 2 fragment on
// containerd 2.x, nodeadm writes the v2 template plus the fragment and then
// execs `containerd config migrate` (a cold binary on the boot path) to
// rewrite the file as version 3. We write the same merged version 2 file
// and let containerd migrate it: containerd 2.0 "automatically migrate[s]
// [daemon configurations] to the latest version on startup"
// (containerd/containerd docs/containerd-2.0.md, "Daemon configuration
// version 3"). The cost is a small in-memory migration at each containerd
// start instead of an exec per boot; the file on disk stays version 2.
//
// A version 3 fragment (version = 3, or io.containerd.cri.v1.images /
// io.containerd.cri.v1.runtime plugins) on containerd 1.x is an error
// wrapping ErrConfigSchema, as in nodeadm.
package containerd
