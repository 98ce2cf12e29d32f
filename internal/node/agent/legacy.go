package agent

import (
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/legacy/bootstrapsh"
	"github.com/nodeboot/nodeboot/internal/config/legacy/bottlerocket"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// Formats a document is reported as once decoded.
const (
	FormatBootstrapSh  = "bootstrap.sh"
	FormatBottlerocket = "bottlerocket"
)

// decodeLegacy handles the formats other than NodeConfig: a shell script
// contributes when it calls /etc/eks/bootstrap.sh, Bottlerocket TOML always.
// Formats that are not ours (cloud-config, other MIME parts) contribute
// nothing and are only listed.
func decodeLegacy(doc userdata.Document) ([]Fragment, diag.List) {
	switch doc.Format {
	case userdata.FormatShell:
		res, problems := bootstrapsh.ParseScript(doc)
		if !res.Found {
			return nil, problems
		}
		src := doc.Source
		src.Format = FormatBootstrapSh
		return []Fragment{{Spec: res.Spec, Source: src, Positions: res.Positions}}, problems
	case userdata.FormatBottlerocket:
		res, problems := bottlerocket.Decode(doc)
		src := doc.Source
		src.Format = FormatBottlerocket
		return []Fragment{{Spec: res.Spec, Source: src, Positions: res.Positions}}, problems
	}
	return nil, nil
}
