// Package fragment decodes one user-data document, whatever its format,
// into the hub specs it contributes: NodeConfig YAML or JSON (one fragment
// per YAML document), a shell script's /etc/eks/bootstrap.sh call, or
// Bottlerocket TOML settings. Formats that are not node configuration
// (cloud-config other than eksctl's AL2 layout, other MIME parts, shell
// scripts without a bootstrap.sh call) contribute nothing. eksctl's AL2
// cloud-config (package eksctlal2) contributes the bootstrap.sh call its
// script makes.
package fragment

import (
	"github.com/nodeboot/nodeboot/internal/config/decode"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/hub"
	"github.com/nodeboot/nodeboot/internal/config/legacy/bootstrapsh"
	"github.com/nodeboot/nodeboot/internal/config/legacy/bottlerocket"
	"github.com/nodeboot/nodeboot/internal/config/legacy/eksctlal2"
	"github.com/nodeboot/nodeboot/internal/config/maxpods"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
	"github.com/nodeboot/nodeboot/internal/config/validate"
)

// Formats a document is reported as once decoded.
const (
	FormatBootstrapSh  = "bootstrap.sh"
	FormatBottlerocket = "bottlerocket"
)

// Fragment is one decoded document's contribution to the config.
type Fragment struct {
	Spec      hub.Spec
	Source    diag.Source
	Positions diag.Positions
	// APIVersion is the NodeConfig apiVersion, empty for other formats.
	APIVersion string
}

// AL2Spec marks a spec read from an AL2 bootstrap.sh call as configuring
// an AL2 node: its containerd config imports /etc/containerd/config.d, as
// the AL2 image's does.
func AL2Spec(s hub.Spec) hub.Spec {
	s.Containerd.ImportConfigDir = true
	return s
}

// Decode dispatches on the document's format; it reads doc alone (a
// Decoder reads the documents of one node's user data in order).
func Decode(doc userdata.Document) ([]Fragment, diag.List) {
	var d Decoder
	return d.Decode(doc)
}

// Decoder decodes the documents of one node's configuration in the order
// they run, carrying what one document changes for those after it:
// eksctl's sed patch of /etc/eks/bootstrap.sh (in an AL2 managed node
// group's user data, before EKS's bootstrap.sh call) makes the calls of
// later documents append its flags to --kubelet-extra-args, as the patched
// bootstrap.sh does. The zero Decoder is ready.
type Decoder struct {
	extraArgsPatch string
}

// Decode decodes the next document.
func (d *Decoder) Decode(doc userdata.Document) ([]Fragment, diag.List) {
	if doc.Format == userdata.FormatShell {
		return d.decodeShell(doc)
	}
	return decodeAlone(doc)
}

// decodeShell reads a shell script's bootstrap.sh call, as patched by the
// earlier documents, and keeps the script's own patch for later ones.
func (d *Decoder) decodeShell(doc userdata.Document) ([]Fragment, diag.List) {
	res, problems := bootstrapsh.ParseScriptAfter(doc, d.extraArgsPatch)
	d.extraArgsPatch += res.ExtraArgsPatch
	if !res.Found {
		return nil, problems
	}
	src := doc.Source
	src.Format = FormatBootstrapSh
	return []Fragment{{Spec: AL2Spec(res.Spec), Source: src, Positions: res.Positions}}, problems
}

// decodeAlone decodes a document whose meaning does not depend on the
// documents before it.
func decodeAlone(doc userdata.Document) ([]Fragment, diag.List) {
	switch doc.Format {
	case userdata.FormatNodeConfig:
		decoded, problems := decode.NodeConfig(doc)
		frags := make([]Fragment, 0, len(decoded))
		for _, d := range decoded {
			frags = append(frags, Fragment{Spec: d.Spec, Source: d.Source, Positions: d.Positions, APIVersion: d.APIVersion})
		}
		return frags, problems
	case userdata.FormatShell:
		var d Decoder
		return d.decodeShell(doc)
	case userdata.FormatBottlerocket:
		res, problems := bottlerocket.Decode(doc)
		src := doc.Source
		src.Format = FormatBottlerocket
		return []Fragment{{Spec: res.Spec, Source: src, Positions: res.Positions}}, problems
	case userdata.FormatCloudConfig:
		res, problems := eksctlal2.Decode(doc)
		if !res.Found {
			return nil, problems
		}
		src := doc.Source
		src.Format = eksctlal2.FormatName
		return []Fragment{{Spec: AL2Spec(res.Spec), Source: src}}, problems
	}
	return nil, nil
}

// CheckExpressions checks each fragment's kubelet.maxPodsExpression with
// ev and reports a bad one at its document and line, as decoding reports
// other values. Decoding cannot do it: which evaluator runs expressions is
// the caller's choice (maxpods.Evaluator).
func CheckExpressions(frags []Fragment, ev maxpods.Evaluator) diag.List {
	var out diag.List
	for _, f := range frags {
		for _, e := range validate.MaxPodsExpression(f.Spec.Kubelet.MaxPodsExpression, ev) {
			out = append(out, diag.Problem{
				Severity: diag.SeverityError, Source: f.Source, Field: e.Field,
				Position: f.Positions.Lookup(e.Field), Message: diag.FieldErrorBody(e),
			})
		}
	}
	return out
}
