package agent

import (
	"github.com/nodeboot/nodeboot/internal/diag"
	"github.com/nodeboot/nodeboot/internal/userdata"
)

// decodeLegacy handles the formats other than NodeConfig. Formats that are
// not ours (cloud-config, other MIME parts) contribute nothing.
func decodeLegacy(doc userdata.Document) ([]Fragment, diag.List) {
	return nil, nil
}
