package target

import (
	"bytes"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/nodeboot/nodeboot/internal/author/generate"
	"github.com/nodeboot/nodeboot/internal/config/diag"
	"github.com/nodeboot/nodeboot/internal/config/userdata"
)

// contentType checks that a document is something the family runs or
// reads, the way t hands it over.
func contentType(d userdata.Document, t Target, f generate.Family) diag.List {
	var out diag.List
	at := diag.Position{Line: max(d.Source.Line, 1)}
	fromMIME := d.Source.ContentType != ""
	powershell := isPowerShell(d.Data)
	switch f {
	case generate.FamilyBottlerocket:
		switch {
		case fromMIME:
			out.Errorf(d.Source, "", at, "Bottlerocket reads its user data as one TOML document, never MIME: this part is not read (terraform-aws-eks#1644); put the settings in [settings.kubernetes], and commands in settings.bootstrap-containers or bootstrap-commands")
		case d.Format != userdata.FormatBottlerocket:
			out.Errorf(d.Source, "", at, "is %s; Bottlerocket user data must be TOML with a [settings] table (karpenter-provider-aws#3536)", describe(d))
		}
		return out
	case generate.FamilyWindows:
		if fromMIME || !powershell {
			out.Errorf(d.Source, "", at, "is %s; Windows user data is PowerShell in a <powershell> block", describe(d))
		}
		return out
	}
	switch {
	case d.Format == userdata.FormatBottlerocket || powershell:
		out.Errorf(d.Source, "", at, "is %s; %s nodes read MIME parts, NodeConfig YAML and shell scripts", describe(d), familyName(f))
		return out
	case t == EKSManaged && !fromMIME:
		out.Errorf(d.Source, "", at, "EKS managed node groups take launch template user data for Amazon Linux only as MIME multipart (EKS appends its own part to it); wrap it in a MIME part")
		return out
	case d.Format == userdata.FormatShell && isNodeConfig(d.Data):
		out.Errorf(d.Source, "", at, "is a NodeConfig, but its part is %s, so the instance runs it as a shell script (karpenter-provider-aws#8220); use Content-Type: application/node.eks.aws", d.Source.ContentType)
	case f == generate.FamilyAL2 && t == Karpenter && !fromMIME && d.Format == userdata.FormatNodeConfig:
		out.Errorf(d.Source, "", at, "Karpenter wraps Amazon Linux 2 user data that is not MIME in a text/x-shellscript part, so this YAML would be run as a shell script (karpenter-provider-aws#8220); wrap it in a MIME part with Content-Type: application/node.eks.aws")
	case f == generate.FamilyAL2 && d.Format == userdata.FormatNodeConfig:
		out.Warnf(d.Source, "", at, "Amazon Linux 2's bootstrap.sh does not read NodeConfig documents; only nodes that boot with nodeboot apply it")
	}
	if t != SelfManaged && d.Format == userdata.FormatShell && bytes.Contains(d.Data, []byte("/etc/eks/bootstrap.sh")) {
		out.Warnf(d.Source, "", at, "calls /etc/eks/bootstrap.sh; %s calls it after your parts with its own arguments, so the node is bootstrapped twice (do not start or configure the kubelet in user data)", producerName(t))
	}
	return out
}

func producerName(t Target) string {
	p, _ := t.producer()
	return p.Name()
}

func familyName(f generate.Family) string {
	if f == generate.FamilyAL2 {
		return "Amazon Linux 2"
	}
	return "AL2023"
}

// describe names what a document is.
func describe(d userdata.Document) string {
	switch {
	case d.Source.ContentType != "":
		return "a MIME part of type " + d.Source.ContentType
	case isPowerShell(d.Data):
		return "PowerShell"
	case d.Format == userdata.FormatNodeConfig:
		return "YAML or JSON (a NodeConfig)"
	}
	return "a " + string(d.Format) + " document"
}

// isPowerShell reports whether data is EC2 Windows user data.
func isPowerShell(data []byte) bool {
	t := strings.ToLower(strings.TrimSpace(string(data)))
	return strings.HasPrefix(t, "<powershell>") || strings.HasPrefix(t, "<script>")
}

// isNodeConfig reports whether data is a YAML or JSON mapping with a
// NodeConfig kind or apiVersion.
func isNodeConfig(data []byte) bool {
	var m map[string]any
	if yaml.Unmarshal(data, &m) != nil {
		return false
	}
	kind, _ := m["kind"].(string)
	apiVersion, _ := m["apiVersion"].(string)
	return kind == "NodeConfig" || strings.HasPrefix(apiVersion, "node.eks.aws/") || strings.HasPrefix(apiVersion, "nodeboot.io/")
}
