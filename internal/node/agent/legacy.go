package agent

import "github.com/nodeboot/nodeboot/internal/config/fragment"

// Formats a document is reported as once decoded.
const (
	FormatBootstrapSh  = fragment.FormatBootstrapSh
	FormatBottlerocket = fragment.FormatBottlerocket
)
