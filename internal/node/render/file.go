// Package render turns a merged, enriched hub.NodeConfig into the bytes of
// every file a node needs. Renderers are pure: same input, same bytes.
package render

import "io/fs"

// File is one output file, its path absolute as on the node (the applier
// prefixes --root).
type File struct {
	Path string
	Mode fs.FileMode
	Data []byte
}
