package userdata

// Test helpers shared with the external test package userdata_test (which
// exists to use internal/config/decode without an import cycle).
var (
	B64       = b64
	Wrap76    = wrap76
	GzipBytes = gzipBytes
)
