package diag

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// secretFields are the field paths whose values may be secrets ("[*]"
// stands for any map key): printed to the console, they would reach
// ec2:GetConsoleOutput.
var secretFields = []string{
	"spec.identity.bootstrapToken.token",
	"spec.identity.exec.env[*]",               // credentials for the exec plugin
	"spec.instance.environment[*][*]",         // proxy URLs with user:password@
	"spec.containerd.config",                  // registry auth: passwords, tokens
	"spec.kubelet.config[staticPodURLHeader]", // HTTP headers such as Authorization
}

// SecretFields lists the field paths whose values are never printed.
func SecretFields() []string { return append([]string(nil), secretFields...) }

// HidesValue reports whether messages about the field at path must not
// show its value: the field may hold a secret, lies inside one that may,
// or contains one (a scalar given where the secret's parent mapping is due
// could be the secret itself, as in bootstrapToken: "token abc…").
func HidesValue(path string) bool {
	return hidesValue(path, secretFields)
}

// hidesValue is HidesValue against given patterns.
func hidesValue(path string, patterns []string) bool {
	got := pathSegments(path)
	for _, pattern := range patterns {
		want := pathSegments(pattern)
		n := min(len(got), len(want))
		matched := true
		for i := range n {
			if !segmentMatches(got[i], want[i]) {
				matched = false
				break
			}
		}
		if matched {
			return true
		}
	}
	return false
}

// segmentMatches compares one path segment with a pattern segment.
func segmentMatches(seg, pattern string) bool {
	if pattern == "[*]" {
		return strings.HasPrefix(seg, "[")
	}
	return seg == pattern
}

// pathSegments splits "spec.a[k.x].b" into "spec", ".a", "[k.x]", ".b";
// "" has no segments.
func pathSegments(path string) []string {
	var out []string
	for i := 0; i < len(path); {
		j := i + 1
		if path[i] == '[' {
			for j < len(path) && path[j] != ']' {
				j++
			}
			j = min(j+1, len(path))
		} else {
			for j < len(path) && path[j] != '.' && path[j] != '[' {
				j++
			}
		}
		out = append(out, path[i:j])
		i = j
	}
	return out
}

// FieldErrorBody renders a field error without its path, the way
// field.Error.ErrorBody does, except that a value that may be secret is
// left out and a long one is cut to a short prefix.
func FieldErrorBody(e *field.Error) string {
	c := *e
	switch v := c.BadValue.(type) {
	case field.OmitValueType:
	case string:
		if HidesValue(c.Field) {
			c.BadValue = field.OmitValueType{}
		} else {
			c.BadValue = ClipValue(v)
		}
	default:
		if HidesValue(c.Field) {
			c.BadValue = field.OmitValueType{}
		} else if s := fmt.Sprint(v); len(s) > maxValueLen {
			c.BadValue = ClipValue(s)
		}
	}
	return c.ErrorBody()
}

// maxValueLen is how many bytes of a value messages show at most.
const maxValueLen = 60

// ClipValue cuts a value shown in a message to at most 60 bytes, marking
// the cut with "…".
func ClipValue(s string) string {
	if len(s) <= maxValueLen {
		return s
	}
	cut := maxValueLen
	for cut > 0 && s[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}
