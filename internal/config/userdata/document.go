// Package userdata reads raw user data from its sources (IMDS, files,
// drop-in directories), undoes base64 and gzip, splits MIME multipart
// documents with precise diagnostics, and classifies each document by format.
package userdata

import "github.com/nodeboot/nodeboot/internal/config/diag"

// Format is what a document was recognised as.
type Format string

// Formats.
const (
	// FormatNodeConfig is a YAML or JSON NodeConfig (node.eks.aws or nodeboot.io).
	FormatNodeConfig Format = "NodeConfig"
	// FormatShell is a shell script (AL2 bootstrap.sh calls are found in it).
	FormatShell Format = "shell"
	// FormatBottlerocket is Bottlerocket TOML settings.
	FormatBottlerocket Format = "bottlerocket"
	// FormatCloudConfig is cloud-init YAML (#cloud-config); not ours.
	FormatCloudConfig Format = "cloud-config"
	// FormatOther is any other MIME part; listed, never applied.
	FormatOther Format = "other"
)

// Document is one unit of user data after transport decoding and MIME
// splitting. Source.Line is the line of the original source where Data
// starts, so decoders can report lines users can find; when Source.Decoded
// is set, lines are those of the decoded text (a decoded MIME part starts
// at line 1) and rendered sources say so.
type Document struct {
	Source diag.Source
	Format Format
	// Data is the document's bytes, encodings undone. A MIME part's ends
	// before the line break of the delimiter line that follows it (RFC
	// 2046 makes that line break part of the delimiter, and nodeadm's and
	// cloud-init's readers drop it).
	Data []byte
	// Boundary is the boundary parameter of a nested multipart part, whose
	// body Data holds undescended ("" for any other document).
	Boundary string
	// Filename is the filename parameter of a MIME part's
	// Content-Disposition ("" if none): cloud-init names the part's file
	// after it (and runs scripts in the order of their names).
	Filename string
}
