package userdata

import (
	"bytes"
	"strings"
)

var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// cloudInitMarkers start cloud-init formats other than #cloud-config; such
// documents are listed as FormatOther, never read as a NodeConfig.
var cloudInitMarkers = []string{
	"#cloud-boothook", "#cloud-config-archive", "#cloud-config-jsonp",
	"#include", "#include-once", "#part-handler", "#upstart-job",
}

// windowsMarkers start EC2 Windows user data.
var windowsMarkers = []string{"<powershell>", "<script>", "<persist>"}

// sniffFormat classifies a document that has no MIME type by how it starts
// (leading white space and a UTF-8 byte order mark are skipped):
// "#!" is a shell script, "#cloud-config" cloud-init YAML, other cloud-init
// markers and "<powershell>" are FormatOther, TOML whose tables or keys
// start with "settings" is Bottlerocket, and anything else is a NodeConfig
// (YAML or JSON).
func sniffFormat(data []byte) Format {
	t := bytes.TrimLeft(bytes.TrimPrefix(data, utf8BOM), " \t\r\n")
	switch {
	case bytes.HasPrefix(t, []byte("#!")):
		return FormatShell
	case hasMarker(t, "#cloud-config"):
		return FormatCloudConfig
	case hasAnyMarker(t, cloudInitMarkers):
		return FormatOther
	case hasAnyPrefixFold(t, windowsMarkers):
		return FormatOther
	case isBottlerocketTOML(t):
		return FormatBottlerocket
	}
	return FormatNodeConfig
}

// sniffPlainText classifies a text/plain MIME part the way cloud-init does:
// only content markers for scripts and cloud-config count; anything else is
// FormatOther (nodeadm never reads text/plain parts).
func sniffPlainText(data []byte) Format {
	switch f := sniffFormat(data); f {
	case FormatShell, FormatCloudConfig:
		return f
	}
	return FormatOther
}

// formatOfMediaType maps a lower-cased MIME media type to a Format.
func formatOfMediaType(media string) Format {
	switch media {
	case "application/node.eks.aws", "application/nodeboot":
		return FormatNodeConfig
	case "text/x-shellscript":
		return FormatShell
	case "text/cloud-config":
		return FormatCloudConfig
	case "application/toml":
		return FormatBottlerocket
	}
	return FormatOther
}

// hasMarker reports whether t starts with marker followed by white space or
// the end, so "#cloud-config-archive" is not "#cloud-config".
func hasMarker(t []byte, marker string) bool {
	if !bytes.HasPrefix(t, []byte(marker)) {
		return false
	}
	return len(t) == len(marker) || isSpace(t[len(marker)])
}

func hasAnyMarker(t []byte, markers []string) bool {
	for _, m := range markers {
		if hasMarker(t, m) {
			return true
		}
	}
	return false
}

func hasAnyPrefixFold(t []byte, prefixes []string) bool {
	for _, p := range prefixes {
		if len(t) >= len(p) && strings.EqualFold(string(t[:len(p)]), p) {
			return true
		}
	}
	return false
}
